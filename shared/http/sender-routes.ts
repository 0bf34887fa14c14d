/** What the sending-domain routes share: the webhook management style (`{code, data}`) and its per-store rate limit. */
import { LIMITS } from '#shared/limits.ts';
import type { RouteOptions } from './route.ts';

export const SENDER_ROUTE = {
  api: 'webhooks',
  rateLimit: { bucket: 'senders', perSecond: LIMITS.webhookManagementPerSecond },
} as const satisfies Pick<RouteOptions<unknown>, 'api' | 'rateLimit'>;
