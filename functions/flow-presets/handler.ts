/** `GET {base_url}/api/v1/flows/presets`: the ready flows a store can create with `POST /api/v1/flows {preset}`. */
import { listPresets } from '#shared/domain/flows/manage-flows.ts';
import { FLOW_ROUTE } from '#shared/http/flow-routes.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';

export const handler = httpRoute({
  ...FLOW_ROUTE,
  handle: async () => webhooksReply.ok(listPresets()),
});
