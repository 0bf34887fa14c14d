/**
 * `GET|POST {base_url}/back-office/stores/{storeId}/flows/{flowId}/steps/{stepId}`: the console's email step form
 * (issue 17). GET shows the step and its preview; a post previews the edited parts (`action=preview`, nothing saved) or
 * saves them (`action=save`, then `303` to the flow page), each validated as `PUT /api/v1/flows/{flowId}` would: a
 * refused edit shows the form again with the reason (400). Refused cross-site (`Origin`).
 */

import { editStep } from '#shared/domain/console/flow-editor.ts';
import { htmlPage, PAGE_HEADERS } from '#shared/http/back-office-pages.ts';
import { stepEditPage } from '#shared/http/console/flow-pages.ts';
import { openConsoleStore } from '#shared/http/console-access.ts';
import { httpRoute } from '#shared/http/route.ts';
import { ConsoleStepPath, StepForm } from '#shared/http/route-inputs.ts';
import { isSameOrigin } from '#shared/http/same-origin.ts';
import { stepEditDeps } from '#shared/wiring/console.ts';

export const handler = httpRoute({
  api: 'backOffice',
  auth: 'none',
  path: ConsoleStepPath,
  form: true,
  body: StepForm,
  handle: async ({ event, path, body }) => {
    const posted = event.requestContext.http.method === 'POST';
    if (posted && !isSameOrigin(event))
      return htmlPage(403, 'Cross-site request refused', 'Edit flows from the console.');
    const opened = await openConsoleStore(event, path.storeId);
    if ('refused' in opened) return opened.refused;
    const { store } = opened;
    const { action, ...fields } = body;
    const outcome = await editStep(
      stepEditDeps(),
      store,
      path.flowId,
      path.stepId,
      posted ? { kind: action ?? 'preview', fields } : { kind: 'show' },
    );
    if (!('saved' in outcome)) return stepEditPage(store, outcome);
    const location = `/back-office/stores/${encodeURIComponent(store.storeId)}/flows/${encodeURIComponent(outcome.saved.id)}`;
    return { statusCode: 303, headers: { ...PAGE_HEADERS, location }, body: '' };
  },
});
