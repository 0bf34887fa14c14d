/**
 * The backtest as a job (docs/backtest.md "As a job"): `POST /api/v1/flows/{flowId}/backtests` checks the request and
 * the flow, records a `queued` job and queues it (202 with its id); the backtest worker runs the same use case as the
 * synchronous route (`backtestFlow`) within the Lambda's 15 minutes, writing its progress on the job every few
 * seconds, then the answer (or the error the synchronous route would have answered); `GET
 * /api/v1/flows/{flowId}/backtests/{backtestId}` shows the job. Jobs expire `BACKTEST_JOB_DAYS` after they are made.
 */
import { promisify } from 'node:util';
import { brotliCompress, brotliDecompress, constants } from 'node:zlib';
import type { Clock } from '#shared/domain/clock.ts';
import { randomBase62 } from '#shared/domain/ids.ts';
import { AppError, notFound, rateLimited } from '#shared/errors.ts';
import { type BacktestDeps, type BacktestRequest, backtestFlow, checkBacktestable } from './backtest.ts';
import type { BacktestAnswer } from './model.ts';

export type BacktestJobStatus = 'queued' | 'running' | 'succeeded' | 'failed';

export interface BacktestProgress {
  /** Events replayed so far. */
  readonly events: number;
  /** The simulated time reached (epoch ms). */
  readonly reachedAt: number;
}

export interface BacktestJob {
  readonly storeId: string;
  readonly id: string;
  readonly flowId: string;
  readonly request: BacktestRequest;
  readonly status: BacktestJobStatus;
  readonly progress?: BacktestProgress;
  /** The answer (`succeeded`), compressed: the `data` of the synchronous route's 200. */
  readonly result?: Uint8Array;
  /** Why it failed (`failed`): the status and message the synchronous route would have answered. */
  readonly error?: { readonly code: number; readonly message: string };
  readonly attempts: number;
  /** Epoch ms. */
  readonly createdAt: number;
  readonly startedAt?: number;
  readonly finishedAt?: number;
  /** Epoch seconds: the table's TTL removes the job then. */
  readonly expiresAt: number;
}

export interface BacktestJobs {
  create(job: BacktestJob): Promise<void>;
  get(storeId: string, id: string): Promise<BacktestJob | undefined>;
  /** Marks a queued job running; false when it is not queued (finished, or running when its worker crashed). */
  start(storeId: string, id: string, at: number): Promise<boolean>;
  /** Puts a running job back to `queued` (its run failed and the message will come back). */
  release(storeId: string, id: string): Promise<void>;
  /** Writes progress on a running job (nothing when it is not running any more). */
  progress(storeId: string, id: string, progress: BacktestProgress): Promise<void>;
  finish(
    storeId: string,
    id: string,
    outcome: Pick<BacktestJob, 'status' | 'result' | 'error' | 'progress' | 'finishedAt'>,
  ): Promise<void>;
  /** Removes a job that could not be queued. */
  remove(storeId: string, id: string): Promise<void>;
}

export interface BacktestQueue {
  enqueue(storeId: string, backtestId: string): Promise<void>;
}

/**
 * A store's jobs queued or running, by id, each until a time past which it cannot still be (its queue's attempts):
 * so one store cannot fill the job queue and keep other stores' jobs waiting behind all of its own.
 */
export interface OpenBacktestJobs {
  /** Counts the job as open until `until` unless the store has `cap` others open (expired ones aside); false then. */
  take(storeId: string, backtestId: string, cap: number, now: number, until: number): Promise<boolean>;
  /** The job is finished (or was never queued); a repeat does nothing. */
  release(storeId: string, backtestId: string): Promise<void>;
}

/**
 * Jobs a store may have queued or running at once: the worker runs two jobs at a time for the whole stage, so a store
 * with many would make every other store's job wait behind all of them; with this cap another store's job waits
 * behind at most two per store.
 */
export const OPEN_JOBS_PER_STORE = 2;
/** A job counts as open at most this long: two receives of its message (90 min visibility each) and margin. */
const OPEN_JOB_MAX_MS = 4 * 3_600_000;

/** Days a job (and its answer) is kept. */
export const BACKTEST_JOB_DAYS = 7;
/** The answer's compressed size at most (the job item stays under DynamoDB's 400 KB); the lists are cut to fit. */
export const MAX_RESULT_BYTES = 300_000;
/** The answer's JSON at most, so that the `GET` answer stays well under Lambda's 6 MB response. */
export const MAX_RESULT_CHARS = 4_000_000;
/** The worker's longest run (Lambda's 15 minutes) and a minute to spare. */
const WORKER_MAX_MS = 16 * 60_000;
const STALLED = {
  code: 500,
  message: 'The backtest stopped without an answer (out of time or memory); start it again',
};
/** Progress is written at most this often. */
const PROGRESS_EVERY_MS = 2_000;
/** Left of the invocation's time when the replay must stop: to write the outcome. */
const FINISH_MARGIN_MS = 20_000;

/** The replay's budget: the invocation's time left less the margin, in whole seconds. */
const budgetOf = (remainingMs: number) => Math.max(0, Math.floor((remainingMs - FINISH_MARGIN_MS) / 1000) * 1000);

const compress = promisify(brotliCompress);
/** Quality 5: most of Brotli's ratio on JSON for a fraction of the default's time. */
const FAST = { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } };
const decompress = promisify(brotliDecompress);

const BACKTEST_ID = /^bt_[A-Za-z0-9]{20}$/;

export interface StartBacktestDeps {
  readonly flows: BacktestDeps['flows'];
  readonly jobs: Pick<BacktestJobs, 'create' | 'remove'>;
  readonly open: OpenBacktestJobs;
  readonly queue: BacktestQueue;
  readonly clock: Clock;
}

/** Records and queues a job; 404 for a flow that is not the store's, 422 for a flow that cannot be backtested. */
export const startBacktestJob = async (
  deps: StartBacktestDeps,
  storeId: string,
  flowId: string,
  request: BacktestRequest,
) => {
  await checkBacktestable(deps.flows, storeId, flowId, request);
  const now = deps.clock.now();
  const id = `bt_${randomBase62(20)}`;
  if (!(await deps.open.take(storeId, id, OPEN_JOBS_PER_STORE, now, now + OPEN_JOB_MAX_MS))) {
    throw rateLimited(
      30,
      `The store has ${OPEN_JOBS_PER_STORE} backtest jobs queued or running, the most at once; start this one when one ` +
        'of them has finished (GET /api/v1/flows/{flowId}/backtests/{backtestId})',
    );
  }
  const job: BacktestJob = {
    storeId,
    id,
    flowId,
    request,
    status: 'queued',
    attempts: 0,
    createdAt: now,
    expiresAt: Math.floor(now / 1000) + BACKTEST_JOB_DAYS * 86_400,
  };
  try {
    await deps.jobs.create(job);
    await deps.queue.enqueue(storeId, job.id);
  } catch (error) {
    await deps.jobs.remove(storeId, job.id).catch(() => undefined);
    await deps.open.release(storeId, job.id).catch(() => undefined);
    throw error;
  }
  return backtestJobView(job);
};

/** The job as the API shows it: status, progress (share of the period replayed), then the answer or the error. */
export const backtestJobView = (shown: BacktestJob, result?: BacktestAnswer, now?: number) => {
  // A job running longer than the worker can run has lost its worker: failed (its message's next receive records it).
  const job: BacktestJob =
    now !== undefined && shown.status === 'running' && now - (shown.startedAt ?? now) > WORKER_MAX_MS
      ? { ...shown, status: 'failed', error: STALLED }
      : shown;
  const from = job.request.from * 1000;
  const span = job.request.to * 1000 - from;
  const share = job.status === 'succeeded' ? 1 : job.progress ? (job.progress.reachedAt - from) / span : 0;
  return {
    backtestId: job.id,
    flowId: job.flowId,
    status: job.status,
    from: job.request.from,
    to: job.request.to,
    progress: {
      events: job.progress?.events ?? 0,
      ...(job.progress ? { reachedAt: job.progress.reachedAt } : {}),
      percent: Math.max(0, Math.min(100, Math.floor(share * 100))),
    },
    createdAt: job.createdAt,
    ...(job.startedAt !== undefined ? { startedAt: job.startedAt } : {}),
    ...(job.finishedAt !== undefined ? { finishedAt: job.finishedAt } : {}),
    ...(result ? { result } : {}),
    ...(job.error ? { error: job.error } : {}),
  };
};

/** `GET …/backtests/{backtestId}`: 404 unless it is this store's job of this flow. */
export const getBacktestJob = async (
  deps: { readonly jobs: Pick<BacktestJobs, 'get'>; readonly clock: Clock },
  storeId: string,
  flowId: string,
  backtestId: string,
) => {
  const job = BACKTEST_ID.test(backtestId) ? await deps.jobs.get(storeId, backtestId) : undefined;
  if (!job || job.flowId !== flowId) throw notFound('Backtest not found');
  const result = job.result
    ? (JSON.parse((await decompress(job.result)).toString('utf8')) as BacktestAnswer)
    : undefined;
  return backtestJobView(job, result, deps.clock.now());
};

/** The answer compressed, its lists cut (halved, `truncated`) until it fits `maxBytes` compressed and `maxChars` as JSON. */
export const packResult = async (
  answer: BacktestAnswer,
  maxBytes = MAX_RESULT_BYTES,
  maxChars = MAX_RESULT_CHARS,
): Promise<Uint8Array> => {
  let listed = Math.max(answer.runs.length, answer.skipped.length);
  let current = answer;
  for (;;) {
    const json = JSON.stringify(current);
    const bytes = json.length <= maxChars ? new Uint8Array(await compress(Buffer.from(json), FAST)) : undefined;
    if ((bytes && bytes.length <= maxBytes) || listed === 0)
      return bytes ?? new Uint8Array(await compress(Buffer.from(json), FAST));
    listed = Math.floor(listed / 2);
    current = {
      ...answer,
      runs: answer.runs.slice(0, listed),
      skipped: answer.skipped.slice(0, listed),
      truncated: true,
    };
  }
};

export interface RunBacktestDeps {
  readonly backtest: BacktestDeps;
  readonly jobs: BacktestJobs;
  readonly open: Pick<OpenBacktestJobs, 'release'>;
  readonly clock: Clock;
}

/**
 * Runs a queued job to its end: the replay's time budget is the invocation's remaining time less a margin. A job
 * already finished is left alone (a message delivered twice); a job found `running` lost its worker (out of time or
 * memory) and is failed. An `AppError` (413, 422, the flow deleted since) fails the job with the synchronous route's
 * status and message; anything else puts it back to `queued` and is thrown for the queue to retry, and is recorded as
 * failed on the last attempt.
 */
export const runBacktestJob = async (
  deps: RunBacktestDeps,
  message: { readonly storeId: string; readonly backtestId: string },
  remainingMs: () => number,
  options: { readonly lastAttempt: boolean },
): Promise<BacktestJobStatus | 'gone'> => {
  const status = await runJob(deps, message, remainingMs, options);
  // Finished (or gone): the store's place is given back, again on a repeated message should a stop have come between.
  if (status !== 'queued') await deps.open.release(message.storeId, message.backtestId);
  return status;
};

const runJob = async (
  deps: RunBacktestDeps,
  message: { readonly storeId: string; readonly backtestId: string },
  remainingMs: () => number,
  options: { readonly lastAttempt: boolean },
): Promise<BacktestJobStatus | 'gone'> => {
  const { storeId, backtestId } = message;
  const job = await deps.jobs.get(storeId, backtestId);
  if (!job) return 'gone';
  if (job.status === 'succeeded' || job.status === 'failed') return job.status;
  if (job.status === 'running') {
    // Its worker ended without a word (out of time or memory): running it again would end the same way.
    await deps.jobs.finish(storeId, backtestId, { status: 'failed', error: STALLED, finishedAt: deps.clock.now() });
    return 'failed';
  }
  if (!(await deps.jobs.start(storeId, backtestId, deps.clock.now()))) return 'gone';
  let written = deps.clock.now();
  let last: BacktestProgress | undefined;
  const onProgress = (progress: BacktestProgress) => {
    last = progress;
    const now = deps.clock.now();
    if (now - written < PROGRESS_EVERY_MS) return;
    written = now;
    deps.jobs.progress(storeId, backtestId, progress).catch(() => undefined);
  };
  try {
    const answer = await backtestFlow(
      { ...deps.backtest, limits: { ...deps.backtest.limits, timeBudgetMs: budgetOf(remainingMs()) } },
      storeId,
      job.flowId,
      job.request,
      { onProgress },
    );
    await deps.jobs.finish(storeId, backtestId, {
      status: 'succeeded',
      result: await packResult(answer),
      progress: { events: answer.replayed.events, reachedAt: job.request.to * 1000 },
      finishedAt: deps.clock.now(),
    });
    return 'succeeded';
  } catch (error) {
    const failure =
      error instanceof AppError
        ? { code: STATUS_OF[error.kind] ?? 422, message: error.message }
        : options.lastAttempt
          ? { code: 500, message: 'The backtest failed; start it again' }
          : undefined;
    if (!failure) {
      // Queued again for the message's next receive.
      await deps.jobs.release(storeId, backtestId);
      throw error;
    }
    await deps.jobs.finish(storeId, backtestId, {
      status: 'failed',
      error: failure,
      ...(last ? { progress: last } : {}),
      finishedAt: deps.clock.now(),
    });
    return 'failed';
  }
};

/** The synchronous route's status of each error the backtest may end with. */
const STATUS_OF: Partial<Record<AppError['kind'], number>> = {
  validation: 400,
  not_found: 404,
  payload_too_large: 413,
  unprocessable: 422,
};
