/** `PUT {base_url}/api/v1/settings/sending`: replaces the store's smart-sending settings (docs/smart-sending.md). */

import { parseSendingSettings, putSendingSettings } from '#shared/domain/stores/sending-settings.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { SETTINGS_ROUTE } from '#shared/http/settings-routes.ts';
import { sendingSettingsDeps } from '#shared/wiring/sending.ts';

export const handler = httpRoute({
  ...SETTINGS_ROUTE,
  body: parseSendingSettings,
  handle: async ({ store, body }) =>
    webhooksReply.ok(await putSendingSettings(sendingSettingsDeps(), store.storeId, body)),
});
