/** What every segment route shares: the `{code, data}` interface of flow and webhook management, its own rate bucket. */
import { LIMITS } from '#shared/limits.ts';
import type { RouteOptions } from './route.ts';

export const SEGMENT_ROUTE = {
  api: 'webhooks',
  rateLimit: { bucket: 'segments', perSecond: LIMITS.segmentManagementPerSecond },
} as const satisfies Pick<RouteOptions<unknown>, 'api' | 'rateLimit'>;
