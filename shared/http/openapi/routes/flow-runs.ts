/**
 * The explain views of flows on `{base_url}`, `{code, data}` answers (docs/flows.md "Explain"): why a contact did or
 * did not get a flow's email. The item shapes follow `evaluationRecord` and `runRecord` of
 * `shared/domain/flows/run.ts`; the paging rules `pageOf` of `shared/domain/flows/explain.ts`.
 */
import * as v from 'valibot';
import { EXPLAIN_PAGE } from '#shared/domain/flows/explain.ts';
import { SKIP_REASONS } from '#shared/domain/flows/run.ts';
import { FLOW_KINDS } from '#shared/domain/flows/trigger.ts';
import { ref } from '#shared/http/openapi/components.ts';
import { route } from '#shared/http/openapi/registry.ts';
import { DATA } from '#shared/http/openapi/shapes.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { FlowActivityQuery, FlowPath, FlowRunsQuery, parametersOf } from '#shared/http/route-inputs.ts';
import { LIMITS } from '#shared/limits.ts';

const millis = (what: string) => v.pipe(v.number(), v.integer(), v.description(`${what}, Unix epoch milliseconds`));
const pace = `At most ${LIMITS.flowManagementPerSecond} calls per second per store (shared with the flows API).`;

const Subject = v.pipe(
  v.object({ type: v.string(), id: v.string() }),
  v.description('What the trigger is about (a cart, an order, a customer, …)'),
);

const RunEvent = v.object({
  at: millis('When it happened'),
  type: v.picklist(['entered', 'waiting', 'resumed', 'split', 'deferred', 'emailed', 'exited', 'completed', 'failed']),
  stepId: v.optional(v.string()),
  branch: v.optional(v.pipe(v.string(), v.description('The branch the run took (`split`)'))),
  messageId: v.optional(v.pipe(v.string(), v.description('SES message id (`emailed`)'))),
  until: v.optional(millis('End of the wait (`waiting`), or when a `deferred` email is tried again')),
  reason: v.optional(
    v.pipe(
      v.string(),
      v.description(
        'Why the run exited (`holdout`, `exit_if`, `flow_disabled`, `flow_deleted`, `step_removed`, `no_consent`, `suppressed`, ' +
          '`recently_mailed`, `frequency_cap`, `daily_send_cap`, `sending_paused`, `waiting_runs_cap`), failed (`send_rejected`, ' +
          '`send_failed`, `render_failed`), or why an email was deferred (`quiet_hours`, `frequency_cap`; docs/smart-sending.md)',
      ),
    ),
  ),
  detail: v.optional(v.record(v.string(), v.unknown())),
});

const FlowRunRecord = v.object({
  id: v.pipe(v.string(), v.description('`run_` and 32 hex digits; the emails’ transmission id')),
  flowId: v.string(),
  status: v.picklist(['active', 'waiting', 'completed', 'exited', 'failed']),
  group: v.optional(
    v.pipe(
      v.string(),
      v.description('Its A/B group in a flow with a split or a holdout: `holdout`, a branch id or `treated`'),
    ),
  ),
  email: v.pipe(v.string(), v.description('The recipient, lower case')),
  triggerId: v.string(),
  triggerKind: v.picklist(FLOW_KINDS),
  subject: Subject,
  startedAt: millis('When the run started'),
  updatedAt: millis('Last change'),
  nextStepId: v.optional(v.pipe(v.string(), v.description('The step to run next (not on completed runs)'))),
  waitUntil: v.optional(millis('When the current wait ends (`waiting`)')),
  events: v.pipe(v.array(RunEvent), v.description('Every state change, in order')),
});

const FlowEvaluationRecord = v.object({
  flowId: v.pipe(
    v.nullable(v.string()),
    v.description('The flow evaluated; null when no flow of the kind matched (`no_matching_flow`)'),
  ),
  triggerId: v.string(),
  triggerKind: v.picklist(FLOW_KINDS),
  subject: Subject,
  email: v.pipe(v.nullable(v.string()), v.description('Lower case; null when the trigger carried none (`no_email`)')),
  at: millis('The trigger’s time'),
  evaluatedAt: millis('When the evaluation was made'),
  outcome: v.picklist(['entered', 'skipped']),
  reason: v.optional(v.pipe(v.picklist(SKIP_REASONS), v.description('Why it did not enter (`skipped`)'))),
  detail: v.optional(
    v.pipe(
      v.record(v.string(), v.unknown()),
      v.description('What the reason is about, e.g. the condition with the value seen: `{field, op, expected, value}`'),
    ),
  ),
  runId: v.optional(v.pipe(v.string(), v.description('The run started (`entered`)'))),
  run: v.optional(v.pipe(FlowRunRecord, v.description('The run as it is now (`entered`)'))),
});

const FlowActivityPage = v.object({
  list: v.pipe(v.array(FlowEvaluationRecord), v.description('Newest first')),
  nextCursor: v.optional(v.pipe(v.string(), v.description('Pass as `cursor` for the next page; absent on the last'))),
});

const page = () => ref('FlowActivityPage', FlowActivityPage);
const LIMIT_MESSAGE = `limit must be an integer from 1 to ${EXPLAIN_PAGE.max}`;

export const FLOW_RUN_ROUTES = {
  'flow-runs': route({
    tag: 'Flows',
    summary: "A flow's evaluations and runs",
    description:
      'Every evaluation of a trigger against the flow, newest first: `entered` ones with their run as it is now, ' +
      `\`skipped\` ones with the reason and what it is about. Another store's flow answers like a missing one. ${pace}`,
    api: 'webhooks',
    path: parametersOf(FlowPath),
    query: parametersOf(FlowRunsQuery),
    ok: webhooksReply.ok(DATA),
    data: page(),
    errors: ['validation', 'not_found', 'rate_limited'],
    errorMessages: { validation: LIMIT_MESSAGE, not_found: 'Flow not found' },
  }),
  'flow-activity': route({
    tag: 'Flows',
    summary: "A contact's flow activity",
    description:
      "Every evaluation and run for one address across the store's flows, newest first, including triggers no flow " +
      `matched (\`no_matching_flow\`, \`flowId\` null). ${pace}`,
    api: 'webhooks',
    query: parametersOf(FlowActivityQuery),
    ok: webhooksReply.ok(DATA),
    data: page(),
    errors: ['validation', 'rate_limited'],
    errorMessages: { validation: 'email is required: the address whose flow activity to show' },
  }),
};
