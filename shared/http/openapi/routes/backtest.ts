/** The flow backtest on `{base_url}`, `{code, data}` answers (docs/backtest.md). */
import * as v from 'valibot';
import { BACKTEST_JOB_DAYS } from '#shared/domain/backtest/job.ts';
import { BACKTEST_LIMITS } from '#shared/domain/backtest/model.ts';
import { ref } from '#shared/http/openapi/components.ts';
import type { JsonSchema } from '#shared/http/openapi/json-schema.ts';
import { route } from '#shared/http/openapi/registry.ts';
import { DATA } from '#shared/http/openapi/shapes.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { BacktestJobPath, FlowPath, parametersOf } from '#shared/http/route-inputs.ts';
import { LIMITS } from '#shared/limits.ts';

const epochSeconds = (what: string): JsonSchema => ({ type: 'integer', minimum: 0, description: what });
const BacktestRequest: JsonSchema = {
  type: 'object',
  required: ['from', 'to'],
  additionalProperties: false,
  properties: {
    from: epochSeconds('Start of the period, epoch seconds (inclusive)'),
    to: epochSeconds(
      `End of the period, epoch seconds (exclusive); at most ${BACKTEST_LIMITS.maxRangeDays} days after from`,
    ),
    limit: {
      type: 'integer',
      minimum: 1,
      maximum: BACKTEST_LIMITS.maxListed,
      default: BACKTEST_LIMITS.defaultListed,
      description: 'Runs and skipped triggers listed (each list); the summary counts every one',
    },
    definition: {
      type: 'object',
      description:
        'Unsaved changes: a full flow definition as `PUT /api/v1/flows/{flowId}` takes it, replayed under the ' +
        "flow's id instead of the stored definition (validated the same way; 400 names the field)",
    },
  },
};

const ms = (what: string) => v.pipe(v.number(), v.description(`${what}, epoch milliseconds`));
const count = v.pipe(v.number(), v.integer());
const reasons = (what: string) => v.pipe(v.record(v.string(), count), v.description(what));
const Subject = v.object({ type: v.string(), id: v.string() });
const Run = v.object({
  runId: v.pipe(v.string(), v.description('The id the live engine gives the run of this flow and trigger')),
  email: v.string(),
  triggerId: v.string(),
  subject: Subject,
  enteredAt: ms('When the run would have started'),
  status: v.pipe(
    v.picklist(['completed', 'exited', 'failed', 'waiting']),
    v.description('`waiting`: at the end of the period'),
  ),
  emails: v.array(v.object({ stepId: v.string(), subject: v.string(), at: ms('When it would have been sent') })),
  exit: v.optional(v.object({ reason: v.string(), stepId: v.optional(v.string()), at: ms('When') })),
  waitingUntil: v.optional(ms('End of the wait a run is on at the end of the period')),
  nextStepId: v.optional(v.string()),
  delays: v.optional(
    v.pipe(
      v.array(
        v.object({
          stepId: v.string(),
          reason: v.pipe(v.string(), v.description('`quiet_hours` or `frequency_cap` (docs/smart-sending.md)')),
          at: ms('When the email was due'),
          until: ms('When it was tried again'),
        }),
      ),
      v.description('Emails of the run put off by quiet hours or the frequency cap'),
    ),
  ),
  recovered: v.array(
    v.object({
      orderId: v.string(),
      stepId: v.optional(v.string()),
      currency: v.string(),
      amount: v.string(),
      at: ms('Paid'),
    }),
  ),
});
const Skip = v.object({
  triggerId: v.string(),
  email: v.optional(v.string()),
  subject: Subject,
  at: ms('The trigger'),
  reason: v.string(),
  detail: v.optional(v.record(v.string(), v.unknown())),
});
const BacktestResult = v.object({
  flowId: v.string(),
  trigger: v.string(),
  from: v.number(),
  to: v.number(),
  replayed: v.object({ events: count, timers: count, failedEvents: count }),
  summary: v.object({
    triggers: count,
    entered: count,
    emails: count,
    contactsEmailed: count,
    skipped: reasons('Triggers that did not enter, by reason (condition_false, no_consent, suppressed, reentry, …)'),
    exited: reasons(
      'Runs that ended before their last step, by reason (exit_if, no_consent, suppressed, frequency_cap, …)',
    ),
    delayed: reasons('Emails deferred by quiet hours or the frequency cap, by reason (quiet_hours, frequency_cap)'),
    completed: count,
    waiting: count,
    recovered: v.object({ orders: count, revenue: v.record(v.string(), v.string()) }),
  }),
  runs: v.array(Run),
  skipped: v.array(Skip),
  truncated: v.boolean(),
  tookMs: count,
});

const BacktestJob = v.object({
  backtestId: v.pipe(v.string(), v.description('`bt_` and 20 letters and digits')),
  flowId: v.string(),
  status: v.pipe(
    v.picklist(['queued', 'running', 'succeeded', 'failed']),
    v.description('`succeeded`: `result` holds the answer; `failed`: `error` says why'),
  ),
  from: v.number(),
  to: v.number(),
  progress: v.object({
    events: v.pipe(count, v.description('Events replayed so far')),
    reachedAt: v.optional(ms('The simulated time reached')),
    percent: v.pipe(count, v.description('Share of the period replayed, 0–100')),
  }),
  createdAt: ms('Started'),
  startedAt: v.optional(ms('Picked up by the worker')),
  finishedAt: v.optional(ms('Finished')),
  result: v.optional(
    v.pipe(
      v.unknown(),
      v.description('The answer, as `POST /api/v1/flows/{flowId}/backtest` gives it (BacktestResult)'),
    ),
  ),
  error: v.optional(
    v.object({
      code: v.pipe(count, v.description('The status the synchronous route would have answered (413, 422, 404, …)')),
      message: v.string(),
    }),
  ),
});

const jobDescription =
  `A backtest of any size, as a job: the same request and answer as \`POST /api/v1/flows/{flowId}/backtest\`, ` +
  'without its 24 s budget (the worker has up to 15 minutes). Answers 202 with the job; poll ' +
  '`GET /api/v1/flows/{flowId}/backtests/{backtestId}` for its progress and then its answer. Jobs and answers are ' +
  `kept ${BACKTEST_JOB_DAYS} days. At most ${LIMITS.flowManagementPerSecond} calls per second per store (shared with ` +
  'the flows API).';

export const BACKTEST_ROUTES = {
  'flow-backtest-start': route({
    tag: 'Flows',
    summary: 'Start a backtest job (any period up to 31 days)',
    description: jobDescription,
    api: 'webhooks',
    path: parametersOf(FlowPath),
    body: ref('BacktestRequest', BacktestRequest),
    ok: webhooksReply.accepted(DATA),
    data: ref('BacktestJob', BacktestJob),
    errors: ['validation', 'unprocessable', 'not_found', 'rate_limited'],
    errorMessages: {
      validation: `a backtest covers at most ${BACKTEST_LIMITS.maxRangeDays} days (from … to is 45 days)`,
      unprocessable:
        'segment_entered flows cannot be backtested: segment membership changes are not part of the event history',
      not_found: 'Flow not found',
    },
  }),
  'flow-backtest-get': route({
    tag: 'Flows',
    summary: 'A backtest job: its progress, then its answer',
    description:
      '`queued`, then `running` with `progress` (events replayed and the share of the period, written every few ' +
      'seconds), then `succeeded` with `result` (the backtest answer; its lists cut to fit 300 KB compressed, ' +
      '`truncated: true`) or `failed` with `error` (the status and message the synchronous route would have given: ' +
      `413 past ${BACKTEST_LIMITS.maxEvents} events, 422 past the worker's time). Another store's or flow's job is ` +
      'not found.',
    api: 'webhooks',
    path: parametersOf(BacktestJobPath),
    ok: webhooksReply.ok(DATA),
    data: ref('BacktestJob', BacktestJob),
    errors: ['not_found', 'rate_limited'],
    errorMessages: { not_found: 'Backtest not found' },
  }),
  'flow-backtest': route({
    tag: 'Flows',
    summary: "Replay a period of the store's events through a flow, sending nothing",
    description:
      "The store's recorded events of the period (kept " +
      'for `EVENT_HISTORY_DAYS`, default 90) replayed in order through the flow as stored, enabled or not, or ' +
      'through `definition`, with the cart, checkout and wait timers simulated: who would have entered, each email ' +
      'with its rendered subject and time, who was skipped and why, and the revenue of the carts and checkouts ' +
      `recovered after an email. At most ${BACKTEST_LIMITS.maxRangeDays} days and ${BACKTEST_LIMITS.maxEvents} events ` +
      `(413 beyond), within ${BACKTEST_LIMITS.timeBudgetMs / 1000} s (422 beyond: a longer backtest runs as a job, ` +
      '`POST /api/v1/flows/{flowId}/backtests`). One at a time per store: another one of the store while it runs ' +
      `is answered 429 with \`Retry-After\`. At most ${LIMITS.flowManagementPerSecond} calls per second per store ` +
      '(shared with the flows API).',
    api: 'webhooks',
    path: parametersOf(FlowPath),
    body: ref('BacktestRequest', BacktestRequest),
    ok: webhooksReply.ok(DATA),
    data: ref('BacktestResult', BacktestResult),
    errors: ['validation', 'payload_too_large', 'unprocessable', 'not_found', 'rate_limited'],
    errorMessages: {
      validation: `a backtest covers at most ${BACKTEST_LIMITS.maxRangeDays} days (from … to is 45 days)`,
      payload_too_large: `The period holds more than ${BACKTEST_LIMITS.maxEvents} events, the most one backtest replays; backtest a shorter range`,
      unprocessable:
        'segment_entered flows cannot be backtested: segment membership changes are not part of the event history',
      not_found: 'Flow not found',
    },
  }),
};
