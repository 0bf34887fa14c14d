/** What every flow definition route shares: the `{code, data}` interface of webhook management, its own rate bucket. */
import { LIMITS } from '#shared/limits.ts';
import type { RouteOptions } from './route.ts';

export const FLOW_ROUTE = {
  api: 'webhooks',
  rateLimit: { bucket: 'flows', perSecond: LIMITS.flowManagementPerSecond },
} as const satisfies Pick<RouteOptions<unknown>, 'api' | 'rateLimit'>;
