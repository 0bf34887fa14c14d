/**
 * The console's flow settings form: the flow's name, its entry conditions (a condition group typed as
 * JSON), each wait's duration and each exit condition. The edited definition goes through the API's own parser
 * (`PUT /api/v1/flows/{flowId}`: the same rules, the same messages), and is saved only if the flow is still at the
 * revision the form was read at. A refusal comes back as messages tied to the fields they are about.
 */
import type { ConditionGroup, FlowStep } from '#shared/domain/flows/flow.ts';
import { possibleFlowId } from '#shared/domain/flows/flow-id.ts';
import {
  type FlowRecord,
  flowRecord,
  type ManageFlowDeps,
  parseFlowUpdateRequest,
  updateFlow,
} from '#shared/domain/flows/manage-flows.ts';
import { isAppError, notFound } from '#shared/errors.ts';
import { readJsonText } from './json-text.ts';

/** The units a wait is typed in, largest first (what a saved wait is shown in: the largest that fits it whole). */
export const WAIT_UNITS = [
  ['days', 86_400],
  ['hours', 3_600],
  ['minutes', 60],
] as const;
export type WaitUnit = (typeof WAIT_UNITS)[number][0];

/** A wait as the form shows it: `{amount: '2', unit: 'hours'}`. */
export interface WaitField {
  readonly amount: string;
  readonly unit: string;
}

/** What the form holds, as typed (text), keyed by step id for the steps. */
export interface SettingsFields {
  readonly name: string;
  /** A condition group as JSON; empty: every trigger of the flow's kind enters. */
  readonly entry: string;
  /** The flow's revision when the form was read. */
  readonly revision: string;
  readonly waits: Readonly<Record<string, WaitField>>;
  /** Each `exit_if` step's condition group as JSON. */
  readonly exits: Readonly<Record<string, string>>;
}

/** The key of a field a message is about: `name`, `entry`, or `step:<stepId>`. */
export type FieldKey = 'name' | 'entry' | `step:${string}`;

export interface SettingsRefusal {
  /** Every message, in the order found (the form's summary). */
  readonly messages: readonly string[];
  /** The message of each field it names (shown beside the field). */
  readonly byField: Readonly<Partial<Record<FieldKey, string>>>;
  /** The flow changed since the form was read: nothing saved, reload. */
  readonly stale?: boolean;
}

export interface SettingsForm {
  readonly flow: FlowRecord;
  readonly fields: SettingsFields;
  readonly refused?: SettingsRefusal;
}

export const CHANGED_MEANWHILE =
  'This flow was changed meanwhile (in another tab, by someone else or through the API), so nothing was saved: reload the page to see the flow as it is now, then make your change again.';

const json = (group: ConditionGroup | undefined) => (group ? JSON.stringify(group, null, 2) : '');

/** A saved wait in the largest unit it fills whole (90 s: 1.5 minutes). */
export const waitField = (seconds: number): WaitField => {
  const [unit, size] = WAIT_UNITS.find(([, size]) => seconds % size === 0) ?? ['minutes', 60];
  return { amount: String(Number((seconds / size).toFixed(4))), unit };
};

const fieldsOf = (flow: FlowRecord): SettingsFields => ({
  name: flow.name,
  entry: json(flow.entry),
  revision: String(flow.revision),
  waits: Object.fromEntries(flow.steps.flatMap((s) => (s.type === 'wait' ? [[s.id, waitField(s.seconds)]] : []))),
  exits: Object.fromEntries(flow.steps.flatMap((s) => (s.type === 'exit_if' ? [[s.id, json(s.condition)]] : []))),
});

/** The form's text over the saved values: a field not posted keeps what is saved. */
const merged = (saved: SettingsFields, posted: Partial<SettingsFields>): SettingsFields => ({
  name: posted.name ?? saved.name,
  entry: posted.entry ?? saved.entry,
  revision: posted.revision ?? saved.revision,
  waits: { ...saved.waits, ...pick(posted.waits, saved.waits) },
  exits: { ...saved.exits, ...pick(posted.exits, saved.exits) },
});

/** Only the posted entries of steps the flow has (a step id it does not have is ignored). */
const pick = <T>(posted: Readonly<Record<string, T>> | undefined, saved: Readonly<Record<string, T>>) =>
  Object.fromEntries(Object.entries(posted ?? {}).filter(([id]) => Object.hasOwn(saved, id)));

/** Which field a message of the API parser (`entry.conditions[0].op …`, `steps[2].seconds …`) is about. */
const fieldOf = (message: string, steps: readonly FlowStep[]): FieldKey | undefined => {
  if (/^name\b/.test(message)) return 'name';
  if (/^entry\b/.test(message)) return 'entry';
  const index = /^steps\[(\d+)\]/.exec(message)?.[1];
  const step = index === undefined ? undefined : steps[Number(index)];
  return step && step.type !== 'email' ? `step:${step.id}` : undefined;
};

const refusal = (messages: readonly string[], steps: readonly FlowStep[], stale = false): SettingsRefusal => {
  const byField: Partial<Record<FieldKey, string>> = {};
  for (const message of messages) {
    const key = fieldOf(message, steps);
    if (key) byField[key] = byField[key] ? `${byField[key]}; ${message}` : message;
  }
  return { messages, byField, ...(stale ? { stale } : {}) };
};

/** A JSON field as a condition group (checked by the API parser next), or what is wrong with its text. */
const condition = (text: string, path: string, problems: string[]): unknown => {
  if (text.trim() === '') return undefined;
  const read = readJsonText(text);
  if ('problem' in read) problems.push(`${path} is not valid JSON: ${read.problem}`);
  return 'value' in read ? read.value : undefined;
};

/** A wait typed as an amount and a unit, in whole seconds (the API parser checks the range). */
const seconds = (wait: WaitField, path: string, problems: string[]): number | undefined => {
  const size = WAIT_UNITS.find(([unit]) => unit === wait.unit)?.[1];
  const amount = wait.amount.trim() === '' ? Number.NaN : Number(wait.amount);
  if (size === undefined) problems.push(`${path} must be in ${WAIT_UNITS.map(([unit]) => unit).join(', ')}`);
  else if (!Number.isFinite(amount)) problems.push(`${path} must be a number of ${wait.unit}`);
  else return Math.round(amount * size);
  return undefined;
};

/** The definition the form describes: the saved flow with its name, conditions and waits as typed. */
const edited = (flow: FlowRecord, fields: SettingsFields, problems: string[]) => {
  const steps = flow.steps.map((step, index) => {
    if (step.type === 'wait') {
      const wait = fields.waits[step.id];
      return wait ? { ...step, seconds: seconds(wait, `steps[${index}].seconds`, problems) } : step;
    }
    if (step.type === 'exit_if') {
      const text = fields.exits[step.id];
      return text === undefined ? step : { ...step, condition: condition(text, `steps[${index}].condition`, problems) };
    }
    return step;
  });
  const revision = fields.revision.trim() === '' ? undefined : Number(fields.revision);
  return { ...flow, name: fields.name, entry: condition(fields.entry, 'entry', problems) ?? null, steps, revision };
};

/**
 * The settings form: `show` the flow as saved; `save` the posted fields (validated as the API validates a `PUT`, then
 * saved on the revision the form was read at). A refused save answers the form as typed with the reasons.
 */
export const editSettings = async (
  deps: ManageFlowDeps,
  storeId: string,
  flowId: string,
  action: { readonly kind: 'show' } | { readonly kind: 'save'; readonly fields: Partial<SettingsFields> },
): Promise<SettingsForm | { saved: FlowRecord }> => {
  const current = possibleFlowId(flowId) ? await deps.flows.get(storeId, flowId) : undefined;
  if (!current) throw notFound('Flow not found');
  const flow = flowRecord(current);
  const saved = fieldsOf(flow);
  if (action.kind === 'show') return { flow, fields: saved };
  const fields = merged(saved, action.fields);
  const problems: string[] = [];
  const definition = edited(flow, fields, problems);
  // A form read before the last change: its messages could be about steps that are no longer there.
  if (Number.isInteger(definition.revision) && definition.revision !== flow.revision) {
    return { flow, fields, refused: refusal([CHANGED_MEANWHILE], flow.steps, true) };
  }
  if (problems.length > 0) return { flow, fields, refused: refusal(problems, flow.steps) };
  try {
    return { saved: await updateFlow(deps, storeId, flowId, parseFlowUpdateRequest(definition)) };
  } catch (error) {
    if (!isAppError(error)) throw error;
    if (error.kind === 'validation') return { flow, fields, refused: refusal(error.message.split('; '), flow.steps) };
    if (error.kind === 'conflict') return { flow, fields, refused: refusal([CHANGED_MEANWHILE], flow.steps, true) };
    throw error;
  }
};
