/** What every webhook management route shares: the `{code, data}` interface and its per-store rate limit. */
import { LIMITS } from '#shared/limits.ts';
import type { RouteOptions } from './route.ts';

export const WEBHOOK_ROUTE = {
  api: 'webhooks',
  rateLimit: { bucket: 'webhooks', perSecond: LIMITS.webhookManagementPerSecond },
} as const satisfies Pick<RouteOptions<unknown>, 'api' | 'rateLimit'>;
