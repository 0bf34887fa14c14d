/**
 * `POST {base_url}/back-office/stores/{storeId}/webhooks/resend`: the webhooks page's re-send forms: one delivery
 * (`delivery=dl_…`), or every failed delivery of a subscription since a time (`webhook=…&since=YYYY-MM-DDTHH:MM`,
 * UTC). Answers `303` back to the page with what it did (`resent`, `skipped`: deliveries that changed meanwhile and
 * were left as they were, `more`); refused cross-site (`Origin`).
 */

import { type ResendSummary, resendFailedSince, resendOne } from '#shared/domain/console/webhooks-view.ts';
import { validationError } from '#shared/errors.ts';
import { storeBase } from '#shared/http/console/layout.ts';
import { openConsoleForm, seeOther } from '#shared/http/console-access.ts';
import { httpRoute } from '#shared/http/route.ts';
import { ConsoleStorePath, ResendForm } from '#shared/http/route-inputs.ts';
import { manageWebhookDeps } from '#shared/wiring/webhooks.ts';

export const handler = httpRoute({
  api: 'backOffice',
  auth: 'none',
  path: ConsoleStorePath,
  form: true,
  body: ResendForm,
  handle: async ({ event, path, body }) => {
    const opened = await openConsoleForm(event, path.storeId, 'Re-send from the webhooks page.');
    if ('refused' in opened) return opened.refused;
    const { storeId } = opened.store;
    let done: ResendSummary;
    if (body.delivery) {
      await resendOne(manageWebhookDeps(), storeId, body.delivery);
      done = { resent: 1, skipped: 0, more: false };
    } else if (body.webhook && body.since) {
      done = await resendFailedSince(manageWebhookDeps(), storeId, body.webhook, Date.parse(`${body.since}Z`));
    } else {
      throw validationError('delivery, or webhook and since, is required');
    }
    const skipped = done.skipped > 0 ? `&skipped=${done.skipped}` : '';
    return seeOther(`${storeBase(storeId)}/webhooks?resent=${done.resent}${skipped}&more=${done.more}`);
  },
});
