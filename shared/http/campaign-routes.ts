/** What every campaign route shares: the `{code, data}` interface of flow and segment management, its own rate bucket. */
import { CAMPAIGN_LIMITS } from '#shared/domain/campaigns/model.ts';
import type { RouteOptions } from './route.ts';

export const CAMPAIGN_ROUTE = {
  api: 'webhooks',
  rateLimit: { bucket: 'campaigns', perSecond: CAMPAIGN_LIMITS.managementPerSecond },
} as const satisfies Pick<RouteOptions<unknown>, 'api' | 'rateLimit'>;
