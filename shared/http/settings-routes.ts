/** What the store settings routes share: the webhook management style (`{code, data}`) and a rate bucket of their own. */
import { LIMITS } from '#shared/limits.ts';
import type { RouteOptions } from './route.ts';

export const SETTINGS_ROUTE = {
  api: 'webhooks',
  rateLimit: { bucket: 'settings', perSecond: LIMITS.webhookManagementPerSecond },
} as const satisfies Pick<RouteOptions<unknown>, 'api' | 'rateLimit'>;
