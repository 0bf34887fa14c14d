/**
 * `GET|POST {base_url}/back-office/stores/{storeId}/flows/{flowId}/steps/{stepId}`: the console's email step
 * form. GET shows the step and its preview; a post previews the edited parts (`action=preview`, nothing saved) or
 * saves them (`action=save`, then `303` to the flow page), each validated as `PUT /api/v1/flows/{flowId}` would: a
 * refused edit shows the form again with the reason (400). Refused cross-site (`Origin`).
 */

import { editStep } from '#shared/domain/console/flow-editor.ts';
import { stepEditPage } from '#shared/http/console/flow-pages.ts';
import { storeBase } from '#shared/http/console/layout.ts';
import { openConsoleForm, seeOther } from '#shared/http/console-access.ts';
import { httpRoute } from '#shared/http/route.ts';
import { ConsoleStepPath, StepForm } from '#shared/http/route-inputs.ts';
import { stepEditDeps } from '#shared/wiring/console.ts';

export const handler = httpRoute({
  api: 'backOffice',
  auth: 'none',
  path: ConsoleStepPath,
  form: true,
  body: StepForm,
  handle: async ({ event, path, body }) => {
    const opened = await openConsoleForm(event, path.storeId, 'Edit flows from the console.');
    if ('refused' in opened) return opened.refused;
    const { store, posted } = opened;
    const { action, ...fields } = body;
    const outcome = await editStep(
      stepEditDeps(),
      store,
      path.flowId,
      path.stepId,
      posted ? { kind: action ?? 'preview', fields } : { kind: 'show' },
    );
    if (!('saved' in outcome)) return stepEditPage(store, outcome);
    return seeOther(`${storeBase(store.storeId)}/flows/${encodeURIComponent(outcome.saved.id)}`);
  },
});
