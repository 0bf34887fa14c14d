import * as v from 'valibot';
import type { CampaignTimerPayload } from '#shared/domain/timers/model.ts';
import { queueMessage } from '#shared/queue/message.ts';
import type { CampaignMessage } from './ports.ts';

const CampaignMessageSchema = v.variant('type', [
  v.object({ v: v.literal(1), type: v.literal('start'), storeId: v.string(), campaignId: v.string() }),
  v.object({ v: v.literal(1), type: v.literal('walk'), storeId: v.string(), campaignId: v.string() }),
  v.object({
    v: v.literal(1),
    type: v.literal('release'),
    storeId: v.string(),
    campaignId: v.string(),
    batchId: v.string(),
  }),
]);

/** Reads a campaigns-queue message; anything else is permanent (no retry can fix it). */
export const parseCampaignMessage: (body: string) => CampaignMessage = queueMessage(
  CampaignMessageSchema,
  'campaign message',
) as (body: string) => CampaignMessage;

/** What a fired campaign timer asks of the campaigns queue: start the campaign, or release one of its held batches. */
export const campaignTimerMessage = (timer: CampaignTimerPayload): CampaignMessage =>
  timer.batchId
    ? { v: 1, type: 'release', storeId: timer.storeId, campaignId: timer.campaignId, batchId: timer.batchId }
    : { v: 1, type: 'start', storeId: timer.storeId, campaignId: timer.campaignId };
