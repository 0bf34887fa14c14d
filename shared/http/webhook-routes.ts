/** What every webhook management route shares: the `{code, data}` interface and its per-store rate limit. */
import { LIMITS } from '#shared/limits.ts';
import type { RouteOptions } from './route.ts';

export const WEBHOOK_ROUTE = {
  api: 'webhooks',
  rateLimit: { bucket: 'webhooks', perSecond: LIMITS.webhookManagementPerSecond },
} as const satisfies Pick<RouteOptions<unknown>, 'api' | 'rateLimit'>;

/**
 * The JSON body as sent, for the one route whose use case must read it after an ownership check: `PUT
 * /api/v1/flows/{flowId}` answers 404 for another store's flow even to an invalid body, so the flow is looked up
 * before the definition is parsed. Every other route parses its body in `httpRoute`.
 */
export const rawBody = (body: unknown): unknown => body;
