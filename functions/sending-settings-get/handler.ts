/** `GET {base_url}/api/v1/settings/sending`: the store's frequency cap, quiet hours and time zone (docs/smart-sending.md). */

import { getSendingSettings } from '#shared/domain/stores/sending-settings.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { SETTINGS_ROUTE } from '#shared/http/settings-routes.ts';
import { sendingSettingsDeps } from '#shared/wiring/sending.ts';

export const handler = httpRoute({
  ...SETTINGS_ROUTE,
  handle: async ({ store }) => webhooksReply.ok(await getSendingSettings(sendingSettingsDeps(), store.storeId)),
});
