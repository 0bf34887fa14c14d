/**
 * Consumes the campaigns queue: starts a due campaign and walks its segments' members a page at a time into the bulk
 * send path, continuing itself in a new message when the walk takes longer than one pass.
 */

import { QUEUES } from '#shared/catalog/queues.ts';
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
  handle: async (message, { context }) => {
    const started = Date.now();
    const hasTime = () => Date.now() - started < PASS_MS && context.getRemainingTimeInMillis() > 30_000;
    const outcome = await handleCampaignMessage(campaignWorkerDeps(), message, hasTime);
    logger.info('Campaign message handled', {
      storeId: message.storeId,
      campaignId: message.campaignId,
      type: message.type,
      ...outcome,
    });
  },
});
