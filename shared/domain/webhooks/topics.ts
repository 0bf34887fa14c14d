/** The spec's webhook topics ("Events" → "Topics"). */
export const WEBHOOK_TOPICS = [
  'bulk_operations/finish',
  'customer/newsletter',
  'customer/marketing',
  'transmission/callback',
] as const;
export type WebhookTopic = (typeof WEBHOOK_TOPICS)[number];
