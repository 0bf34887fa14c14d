/** `GET {base_url}/api/v1/flow-activity?email=&limit=&cursor=`: every flow evaluation and run for one address. */

import { listContactActivity } from '#shared/domain/flows/explain.ts';
import { FLOW_ROUTE } from '#shared/http/flow-routes.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { FlowActivityQuery } from '#shared/http/route-inputs.ts';
import { explainDeps } from '#shared/wiring/flow-engine.ts';

export const handler = httpRoute({
  query: FlowActivityQuery,
  // The flows API's interface and rate bucket: explain and definition calls share one budget.
  ...FLOW_ROUTE,
  handle: async ({ store, query }) =>
    webhooksReply.ok(
      await listContactActivity(explainDeps(), store.storeId, {
        email: query.email,
        limit: query.limit,
        cursor: query.cursor,
      }),
    ),
});
