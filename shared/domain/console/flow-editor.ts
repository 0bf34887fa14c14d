/**
 * The console's flow editing: create a flow from a preset, and change an email step's subject, preheader
 * and body with the same validation as the API (`PUT /api/v1/flows/{flowId}`), previewed for a real trigger of the
 * store before it is saved. A refused input comes back as the message to show beside the form, never a half-saved
 * flow.
 */
import type { FlowStep } from '#shared/domain/flows/flow.ts';
import { possibleFlowId } from '#shared/domain/flows/flow-id.ts';
import {
  createFlow,
  type FlowRecord,
  flowRecord,
  type ManageFlowDeps,
  parseFlowCreateRequest,
  parseFlowUpdateRequest,
  updateFlow,
} from '#shared/domain/flows/manage-flows.ts';
import { flatSteps, replaceStep } from '#shared/domain/flows/split.ts';
import { isAppError, notFound } from '#shared/errors.ts';
import {
  type EmailPreview,
  type PreviewDeps,
  type PreviewSource,
  previewSource,
  renderPreviews,
} from './flow-detail.ts';
import { CHANGED_MEANWHILE } from './flow-settings.ts';

/** What the new-flow form posts. */
export interface NewFlowFields {
  readonly preset?: string | undefined;
  readonly from_email?: string | undefined;
  readonly from_name?: string | undefined;
  readonly name?: string | undefined;
}

/** An outcome the page shows: done, or refused with the message (the form is shown again, filled in). */
export type Outcome<T> = { readonly done: T } | { readonly refused: string };

/** Refusals of the input (validation, conflict) become the message; anything else is a failure of the service. */
const refusedOr = async <T>(work: () => Promise<T>): Promise<Outcome<T>> => {
  try {
    return { done: await work() };
  } catch (error) {
    if (isAppError(error) && (error.kind === 'validation' || error.kind === 'conflict'))
      return { refused: error.message };
    throw error;
  }
};

/** Creates a flow from a preset, disabled: it starts once enabled on its page, after a look at its emails. */
export const createFromPreset = (
  deps: ManageFlowDeps,
  storeId: string,
  fields: NewFlowFields,
): Promise<Outcome<FlowRecord>> =>
  refusedOr(() =>
    createFlow(
      deps,
      storeId,
      parseFlowCreateRequest({
        preset: fields.preset ?? '',
        from: { email: fields.from_email ?? '', ...(fields.from_name ? { name: fields.from_name } : {}) },
        ...(fields.name ? { name: fields.name } : {}),
        enabled: false,
      }),
    ),
  );

/** The email parts the step form edits. */
export interface StepFields {
  readonly subject?: string | undefined;
  readonly preheader?: string | undefined;
  readonly html?: string | undefined;
  readonly text?: string | undefined;
  /** The flow's revision when the form was read (a save is conditional on it). */
  readonly revision?: string | undefined;
}

export type EmailStep = Extract<FlowStep, { type: 'email' }>;

export interface StepEdit {
  readonly flow: FlowRecord;
  /** The step as saved. */
  readonly step: EmailStep;
  /** What the form shows: the step as saved, or as edited. */
  readonly fields: Required<Pick<StepFields, 'subject'>> & StepFields;
  /** Why the edited step was refused (inline beside the form). */
  readonly error?: string;
  /** The flow changed since the form was read: nothing saved. */
  readonly stale?: boolean;
  readonly preview?: { readonly source: PreviewSource; readonly email: EmailPreview };
}

const ownStep = async (deps: ManageFlowDeps, storeId: string, flowId: string, stepId: string) => {
  const flow = possibleFlowId(flowId) ? await deps.flows.get(storeId, flowId) : undefined;
  const step = flow
    ? flatSteps(flow.steps).find((s): s is EmailStep => s.id === stepId && s.type === 'email')
    : undefined;
  if (!flow || !step) throw notFound('Flow or email step not found');
  return { flow, step };
};

const fieldsOf = (step: EmailStep, revision: number): StepEdit['fields'] => ({
  revision: String(revision),
  subject: step.subject,
  ...(step.preheader !== undefined ? { preheader: step.preheader } : {}),
  ...(step.html !== undefined ? { html: step.html } : {}),
  ...(step.text !== undefined ? { text: step.text } : {}),
});

/** The edited step: empty parts are left out (a step needs html or text; the schema says which is missing). */
const edited = (step: EmailStep, fields: StepFields): EmailStep => {
  const { preheader: _p, html: _h, text: _t, ...rest } = step;
  return {
    ...rest,
    subject: fields.subject ?? '',
    ...(fields.preheader ? { preheader: fields.preheader } : {}),
    ...(fields.html ? { html: fields.html } : {}),
    ...(fields.text ? { text: fields.text } : {}),
  };
};

/**
 * The step form: `show` the step as saved with its preview; `preview` the edited parts (validated as the API would,
 * nothing saved); `save` them (validated, then saved on the revision the form was read at).
 */
export const editStep = async (
  deps: ManageFlowDeps & PreviewDeps,
  store: { storeId: string; name: string },
  flowId: string,
  stepId: string,
  action: { readonly kind: 'show' } | { readonly kind: 'preview' | 'save'; readonly fields: StepFields },
): Promise<StepEdit | { saved: FlowRecord }> => {
  const { flow, step } = await ownStep(deps, store.storeId, flowId, stepId);
  const readAt = action.kind !== 'show' && action.fields.revision ? Number(action.fields.revision) : undefined;
  if (action.kind === 'save' && Number.isInteger(readAt) && readAt !== flow.revision) {
    return {
      flow: flowRecord(flow),
      step,
      fields: { ...action.fields, subject: action.fields.subject ?? '' },
      error: CHANGED_MEANWHILE,
      stale: true,
    };
  }
  const candidate = action.kind === 'show' ? step : edited(step, action.fields);
  const record = flowRecord(flow);
  // The whole definition with the edited step, through the API's own parser: the same rules and messages.
  const checked = await refusedOr(async () =>
    parseFlowUpdateRequest({
      ...record,
      steps: replaceStep(record.steps, stepId, candidate),
      revision: flow.revision,
    }),
  );
  if (action.kind === 'save' && 'done' in checked) {
    const saved = await refusedOr(() => updateFlow(deps, store.storeId, flowId, checked.done));
    if ('done' in saved) return { saved: saved.done };
    return {
      flow: record,
      step,
      fields: { ...fieldsOf(step, flow.revision), ...action.fields, subject: action.fields.subject ?? '' },
      error: saved.refused,
    };
  }
  const fields =
    action.kind === 'show' ? fieldsOf(step, flow.revision) : { ...action.fields, subject: action.fields.subject ?? '' };
  if ('refused' in checked) return { flow: record, step, fields, error: checked.refused };
  const source = await previewSource(deps, store.storeId, flow);
  if (!source) return { flow: record, step, fields };
  const [email] = await renderPreviews(deps, store, [candidate], source);
  return { flow: record, step, fields, ...(email ? { preview: { source, email } } : {}) };
};
