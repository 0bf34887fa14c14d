/**
 * Consumes the campaigns queue: starts a due campaign and walks its segments' members a page at a time into the bulk
 * send path, continuing itself in a new message when the walk takes longer than one pass.
 */

import { whileInvisible } from '#shared/adapters/sqs/visibility.ts';
import { QUEUES } from '#shared/catalog/queues.ts';
import { required } from '#shared/config.ts';
import { parseCampaignMessage } from '#shared/domain/campaigns/campaign-message.ts';
import { handleCampaignMessage } from '#shared/domain/campaigns/run-campaign.ts';
import { logger } from '#shared/observability.ts';
import { queueWorker } from '#shared/queue/batch.ts';
import { campaignWorkerDeps } from '#shared/wiring/campaigns.ts';

/** A pass runs at most this long before it queues its continuation: the worker's timeout bounds a crashed pass. */
const PASS_MS = 60_000;

export const handler = queueWorker({
  queue: QUEUES.campaigns,
  parse: parseCampaignMessage,
  handle: async (message, { context, record }) => {
    const started = Date.now();
    const hasTime = () => Date.now() - started < PASS_MS && context.getRemainingTimeInMillis() > 30_000;
    // Invisible a minute at a time while the pass runs: a worker that dies leaves the walk to another within a minute,
    // from the position recorded on the campaign, not after the queue's twelve-minute timeout.
    const outcome = await whileInvisible(required('campaignQueueUrl'), record, 'Campaign', () =>
      handleCampaignMessage(campaignWorkerDeps(), message, hasTime),
    );
    logger.info('Campaign message handled', {
      storeId: message.storeId,
      campaignId: message.campaignId,
      type: message.type,
      ...outcome,
    });
  },
});
