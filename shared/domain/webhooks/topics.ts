/**
 * The spec's webhook topics ("Events" → "Topics"), and Storeflow's own: `store/sending_paused`, the sending guard
 * pausing the store's marketing mail or the pause ending (docs/webhooks.md).
 */
export const WEBHOOK_TOPICS = [
  'bulk_operations/finish',
  'customer/newsletter',
  'customer/marketing',
  'transmission/callback',
  'store/sending_paused',
] as const;
export type WebhookTopic = (typeof WEBHOOK_TOPICS)[number];
