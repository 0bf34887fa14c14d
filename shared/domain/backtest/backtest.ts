/**
 * `POST /api/v1/flows/{flowId}/backtest {from, to, limit?, definition?}` (docs/backtest.md): the store's events of the
 * period replayed through the flow as stored (enabled or not), or through `definition` (unsaved changes, validated
 * like a `PUT`) under the flow's id, with nothing sent. Bounded: a range of at most 31 days, a number of events, and a
 * wall-clock budget under the gateway's 29 s.
 */
import type { Clock } from '#shared/domain/clock.ts';
import type { SenderRepository } from '#shared/domain/email/ports.ts';
import { normalizeDomain } from '#shared/domain/email/sender.ts';
import type { Flow } from '#shared/domain/flows/flow.ts';
import { possibleFlowId } from '#shared/domain/flows/flow-id.ts';
import { type FlowDefinition, parseFlowDefinition } from '#shared/domain/flows/flow-schema.ts';
import type { FlowRepository } from '#shared/domain/flows/ports.ts';
import { isSegmentKind } from '#shared/domain/flows/trigger.ts';
import { type EventHistory, readHistory } from '#shared/domain/ingest/event-history.ts';
import type { StoreSlot } from '#shared/domain/store-slot.ts';
import { AppError, notFound, rateLimited, validationError } from '#shared/errors.ts';
import { BACKTEST_LIMITS, type BacktestAnswer } from './model.ts';
import { ReplayBound, type ReplayLive, replay } from './replay.ts';
import { summarise } from './summarise.ts';

export interface BacktestDeps {
  readonly flows: Pick<FlowRepository, 'get'>;
  readonly history: Pick<EventHistory, 'page'>;
  readonly live: ReplayLive;
  /** The wall clock: the time budget, and nothing else (the replay keeps its own). */
  readonly clock: Clock;
  /** Past the time budget, the 422 names the job route (the synchronous route's answer). */
  readonly jobHint?: boolean;
  /** Overrides of `BACKTEST_LIMITS` (tests, and the job's own budget). */
  readonly limits?: { readonly maxEvents?: number; readonly timeBudgetMs?: number };
}

export interface BacktestRequest {
  /** The period, epoch seconds, `to` exclusive. */
  readonly from: number;
  readonly to: number;
  readonly limit: number;
  readonly definition?: FlowDefinition;
}

const DAY_SECONDS = 86_400;
const KNOWN = new Set(['from', 'to', 'limit', 'definition']);

const seconds = (body: Record<string, unknown>, name: 'from' | 'to'): number => {
  const value = body[name];
  if (value === undefined) throw validationError(`${name} is required (epoch seconds)`);
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 99_999_999_999) {
    throw validationError(`${name} must be a time in epoch seconds (a whole number)`);
  }
  return value;
};

/** The request body, checked: 400 naming the field and the rule. */
export const parseBacktestRequest = (body: unknown): BacktestRequest => {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw validationError('body must be a JSON object {from, to}');
  }
  const record = body as Record<string, unknown>;
  const unknown = Object.keys(record).find((key) => !KNOWN.has(key));
  if (unknown !== undefined) throw validationError(`body has an unknown field "${unknown}"`);
  const from = seconds(record, 'from');
  const to = seconds(record, 'to');
  if (to <= from) throw validationError('to must be after from');
  const days = (to - from) / DAY_SECONDS;
  if (days > BACKTEST_LIMITS.maxRangeDays) {
    throw validationError(
      `a backtest covers at most ${BACKTEST_LIMITS.maxRangeDays} days (from … to is ${Math.ceil(days)} days)`,
    );
  }
  const limit = record.limit ?? BACKTEST_LIMITS.defaultListed;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > BACKTEST_LIMITS.maxListed) {
    throw validationError(`limit must be a whole number from 1 to ${BACKTEST_LIMITS.maxListed}`);
  }
  if (record.definition === undefined) return { from, to, limit };
  try {
    return { from, to, limit, definition: parseFlowDefinition(record.definition).definition };
  } catch (error) {
    if (error instanceof AppError) throw validationError(`definition: ${error.message}`);
    throw error;
  }
};

const unprocessable = (message: string) => new AppError('unprocessable', message);

/**
 * The draft a backtest replays: the stored flow as it is, or the unsaved definition under its id, enabled for the
 * replay either way. 404 for a flow that is not the store's, 422 for a flow the history cannot replay.
 */
export const checkBacktestable = async (
  flows: BacktestDeps['flows'],
  storeId: string,
  flowId: string,
  request: Pick<BacktestRequest, 'definition'>,
): Promise<Flow> => {
  const stored = possibleFlowId(flowId) ? await flows.get(storeId, flowId) : undefined;
  if (!stored) throw notFound('Flow not found');
  const flow: Flow = { ...stored, ...(request.definition ?? {}), id: stored.id, storeId, enabled: true };
  if (isSegmentKind(flow.trigger)) {
    throw unprocessable(
      `${flow.trigger} flows cannot be backtested: segment membership changes are not part of the event history`,
    );
  }
  return flow;
};

export interface BacktestOptions {
  /** Told of the replay's progress every few hundred events (the job writes it on the job). */
  readonly onProgress?: (progress: { events: number; reachedAt: number }) => void;
}

/**
 * How long the synchronous backtest holds its store's slot at most: its function's 29 s and some margin, so a function
 * that dies mid-replay frees its store's slot by then.
 */
export const SYNC_BACKTEST_SLOT_SECONDS = 35;

/**
 * The synchronous backtest, one per store at a time: each holds a 2 GB function for up to 24 s, so a store (or a
 * script with its key) cannot hold many of the deployment's executions at once. A second one while the first runs is
 * answered 429; a longer or parallel replay is what the jobs are for.
 */
export const backtestOneAtATime = async (
  deps: BacktestDeps & { readonly slot: StoreSlot },
  storeId: string,
  flowId: string,
  request: BacktestRequest,
): Promise<BacktestAnswer> => {
  const slot = await deps.slot.claim(storeId, SYNC_BACKTEST_SLOT_SECONDS);
  if (!slot.claimed) {
    throw rateLimited(
      slot.retryAfterSeconds,
      'A backtest of this store is already running: one synchronous backtest per store at a time. Retry when it ' +
        'has answered, or start this one as a job (POST /api/v1/flows/{flowId}/backtests)',
    );
  }
  try {
    return await backtestFlow(deps, storeId, flowId, request);
  } finally {
    await deps.slot.release(storeId, slot.claimId);
  }
};

export const backtestFlow = async (
  deps: BacktestDeps,
  storeId: string,
  flowId: string,
  request: BacktestRequest,
  options: BacktestOptions = {},
): Promise<BacktestAnswer> => {
  const flow = await checkBacktestable(deps.flows, storeId, flowId, request);
  const limits = { ...BACKTEST_LIMITS, ...deps.limits };
  const started = deps.clock.now();
  const from = request.from * 1000;
  const to = request.to * 1000;
  try {
    const result = await replay(deps.live, {
      storeId,
      flow,
      from,
      to,
      events: readHistory(deps.history, storeId, from, to),
      maxEvents: limits.maxEvents,
      deadline: started + limits.timeBudgetMs,
      wallClock: () => deps.clock.now(),
      ...(options.onProgress ? { progress: options.onProgress } : {}),
    });
    return {
      flowId: flow.id,
      trigger: flow.trigger,
      from: request.from,
      to: request.to,
      replayed: { events: result.replayed, timers: result.fired, failedEvents: result.failedEvents },
      ...summarise(result, flow.id, request.limit),
      tookMs: deps.clock.now() - started,
    };
  } catch (error) {
    if (!(error instanceof ReplayBound)) throw error;
    if (error.bound === 'events') {
      throw new AppError(
        'payload_too_large',
        `The period holds more than ${limits.maxEvents} events, the most one backtest replays; backtest a shorter range`,
      );
    }
    throw unprocessable(
      `The backtest did not finish within its budget of ${limits.timeBudgetMs / 1000} s (it had replayed ` +
        `${error.replayed} events, up to ${new Date(error.reachedAt).toISOString()}); backtest a shorter range` +
        (deps.jobHint ? ', or start it as a job: POST /api/v1/flows/{flowId}/backtests' : ''),
    );
  }
};

/**
 * The live engine's sender rule, read-only: the from domain must be a verified sender of the store as recorded (a
 * pending domain is not re-checked with the mail engine, as sending would do). A run whose sender fails ends
 * `failed` with `sender_not_verified`, as it would live.
 */
export const recordedSenderCheck =
  (senders: Pick<SenderRepository, 'get'>) =>
  async (storeId: string, fromEmail: string): Promise<void> => {
    const raw = fromEmail.slice(fromEmail.lastIndexOf('@') + 1);
    const domain = normalizeDomain(raw);
    const sender = domain ? await senders.get(storeId, domain) : undefined;
    if (sender?.status !== 'verified') {
      throw validationError(`from.email domain ${domain ?? raw} is not a verified sending domain of this store`);
    }
  };
