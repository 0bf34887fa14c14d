/**
 * The backtest as a job (docs/backtest.md "As a job"): started (a queued job and its message), run by the worker
 * (progress, then the answer; the synchronous route's errors recorded on the job), shown to its own store and flow only.
 */
import { describe, expect, it } from 'vitest';
import {
  type BacktestJob,
  type BacktestJobs,
  getBacktestJob,
  OPEN_JOBS_PER_STORE,
  type OpenBacktestJobs,
  packResult,
  runBacktestJob,
  startBacktestJob,
} from '#shared/domain/backtest/job.ts';
import type { BacktestAnswer } from '#shared/domain/backtest/model.ts';
import type { Flow } from '#shared/domain/flows/flow.ts';
import { backtestFakes } from '#test/support/memory/backtest.ts';
import { customerOf, emailStep, flowOf, STORE } from '#test/support/memory/flow-engine.ts';

const T0 = Date.UTC(2026, 9, 1);
const request = { from: T0 / 1000, to: T0 / 1000 + 2 * 86_400, limit: 10 };
const cartFlow = (): Flow => flowOf('fl_cart', 'abandoned_cart', { consent: 'subscribed', steps: [emailStep('only')] });

const memoryJobs = () => {
  const jobs = new Map<string, BacktestJob>();
  const progress: unknown[] = [];
  const repository: BacktestJobs = {
    create: async (job) => void jobs.set(job.id, job),
    get: async (storeId, id) => (jobs.get(id)?.storeId === storeId ? jobs.get(id) : undefined),
    async start(_storeId, id, at) {
      const job = jobs.get(id);
      if (job?.status !== 'queued') return false;
      jobs.set(id, { ...job, status: 'running', startedAt: at, attempts: job.attempts + 1 });
      return true;
    },
    async release(_storeId, id) {
      const job = jobs.get(id);
      if (job?.status === 'running') jobs.set(id, { ...job, status: 'queued' });
    },
    async progress(_storeId, id, p) {
      progress.push(p);
      const job = jobs.get(id);
      if (job?.status === 'running') jobs.set(id, { ...job, progress: p });
    },
    async finish(_storeId, id, outcome) {
      const job = jobs.get(id);
      if (job?.status === 'running') jobs.set(id, { ...job, ...outcome });
    },
    remove: async (_storeId, id) => void jobs.delete(id),
  };
  return { jobs, progress, repository };
};

/** The store's open jobs in memory, with the table adapter's rules (expired ids do not count, a repeat is a no-op). */
const memoryOpenJobs = (): OpenBacktestJobs & { readonly jobs: Map<string, Map<string, number>> } => {
  const jobs = new Map<string, Map<string, number>>();
  return {
    jobs,
    async take(storeId, id, cap, now, until) {
      const own = jobs.get(storeId) ?? new Map<string, number>();
      const live = [...own].filter(([other, ends]) => ends > now && other !== id);
      if (live.length >= cap) return false;
      jobs.set(storeId, new Map([...live, [id, until]]));
      return true;
    },
    async release(storeId, id) {
      jobs.get(storeId)?.delete(id);
    },
  };
};

const setup = (events = 3) => {
  const f = backtestFakes({ flows: [cartFlow()] });
  for (let i = 0; i < events; i++) {
    const email = `p${i}@example.com`;
    f.customers.set(`c-${i}`, customerOf(`c-${i}`, { email, emailConsent: { state: 'subscribed', updatedAt: 1 } }));
    f.events.push({
      storeId: STORE,
      sourceId: `s-${i}`,
      endpoint: 'carts/create',
      interface: 'general',
      acceptedAt: T0 + i * 60_000,
      data: {
        token: `cart-${i}`,
        email,
        checkout_url: `https://shop.example/cart/${i}`,
        line_items: [{ product_id: 'p-1', variant_id: 'v-1', title: 'Lamp', quantity: 1, price: '10.00' }],
      },
    });
  }
  const memory = memoryJobs();
  const queued: string[] = [];
  const open = memoryOpenJobs();
  const start = {
    flows: f.deps.flows,
    jobs: memory.repository,
    open,
    queue: { enqueue: async (_s: string, id: string) => void queued.push(id) },
    clock: f.deps.clock,
  };
  const run = { backtest: f.deps, jobs: memory.repository, open, clock: f.deps.clock };
  return { f, memory, queued, start, run, open };
};

const failure = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    return error as { kind?: string; message: string };
  }
  throw new Error('expected a failure');
};

describe('backtest jobs', () => {
  it('records a queued job and its message, then runs it to the answer the synchronous route gives', async () => {
    const { f, memory, queued, start, run } = setup();
    const view = await startBacktestJob(start, STORE, 'fl_cart', request);
    expect(view).toMatchObject({ flowId: 'fl_cart', status: 'queued', progress: { events: 0, percent: 0 } });
    expect(view.backtestId).toMatch(/^bt_[A-Za-z0-9]{20}$/);
    expect(queued).toEqual([view.backtestId]);
    const stored = memory.jobs.get(view.backtestId) as BacktestJob;
    expect(stored.expiresAt).toBe(Math.floor(stored.createdAt / 1000) + 7 * 86_400);

    const outcome = await runBacktestJob(run, { storeId: STORE, backtestId: view.backtestId }, () => 900_000, {
      lastAttempt: false,
    });
    expect(outcome).toBe('succeeded');
    const shown = await getBacktestJob(
      { jobs: memory.repository, clock: f.deps.clock },
      STORE,
      'fl_cart',
      view.backtestId,
    );
    expect(shown).toMatchObject({ status: 'succeeded', progress: { events: 3, percent: 100 } });
    expect(shown.result).toMatchObject({
      flowId: 'fl_cart',
      replayed: { events: 3 },
      summary: { entered: 3, emails: 3 },
    });

    // The same message again (a second delivery): the finished job is left as it is.
    expect(
      await runBacktestJob(run, { storeId: STORE, backtestId: view.backtestId }, () => 900_000, { lastAttempt: false }),
    ).toBe('succeeded');
    expect(memory.jobs.get(view.backtestId)?.attempts).toBe(1);
  });

  it('writes its progress every few seconds of wall time while it replays', async () => {
    const { f, memory, start, run } = setup(1_100);
    const view = await startBacktestJob(start, STORE, 'fl_cart', request);
    // Each progress report moves the wall clock 1.5 s: every second report is written.
    const ticking = {
      ...run,
      clock: {
        now: () => {
          f.advanceWall(750);
          return f.deps.clock.now();
        },
      },
    };
    await runBacktestJob(ticking, { storeId: STORE, backtestId: view.backtestId }, () => 900_000, {
      lastAttempt: false,
    });
    expect(memory.progress.length).toBeGreaterThan(0);
    expect(memory.progress[0]).toMatchObject({ events: expect.any(Number), reachedAt: expect.any(Number) });
  });

  it("records the synchronous route's errors on the job, and fails it on the last attempt of anything else", async () => {
    const { f, memory, start, run } = setup(600);
    const view = await startBacktestJob(start, STORE, 'fl_cart', request);
    // Less time left than the margin: a budget of 0 s, past at the replay's first check, as the route's 422 says.
    const ticking = {
      ...run,
      backtest: {
        ...f.deps,
        clock: {
          now: () => {
            f.advanceWall(1);
            return f.deps.clock.now();
          },
        },
      },
    };
    expect(
      await runBacktestJob(ticking, { storeId: STORE, backtestId: view.backtestId }, () => 1_000, {
        lastAttempt: false,
      }),
    ).toBe('failed');
    const shown = await getBacktestJob(
      { jobs: memory.repository, clock: f.deps.clock },
      STORE,
      'fl_cart',
      view.backtestId,
    );
    expect(shown.error?.code).toBe(422);
    expect(shown.error?.message).toMatch(/^The backtest did not finish within its budget of 0 s/);

    const broken = {
      ...run,
      backtest: { ...f.deps, history: { page: async () => Promise.reject(new Error('table down')) } },
    };
    const second = await startBacktestJob(start, STORE, 'fl_cart', request);
    const message = { storeId: STORE, backtestId: second.backtestId };
    await expect(runBacktestJob(broken, message, () => 900_000, { lastAttempt: false })).rejects.toThrow('table down');
    expect(memory.jobs.get(second.backtestId)?.status).toBe('queued');
    expect(await runBacktestJob(broken, message, () => 900_000, { lastAttempt: true })).toBe('failed');
    expect(memory.jobs.get(second.backtestId)?.error).toEqual({
      code: 500,
      message: 'The backtest failed; start it again',
    });
  });

  it('fails a job whose worker ended without a word, when shown and when its message comes back', async () => {
    const { f, memory, start, run } = setup();
    const view = await startBacktestJob(start, STORE, 'fl_cart', request);
    await memory.repository.start(STORE, view.backtestId, f.deps.clock.now());
    const deps = { jobs: memory.repository, clock: f.deps.clock };
    expect((await getBacktestJob(deps, STORE, 'fl_cart', view.backtestId)).status).toBe('running');
    f.advanceWall(17 * 60_000);
    const stalled = await getBacktestJob(deps, STORE, 'fl_cart', view.backtestId);
    expect(stalled).toMatchObject({ status: 'failed', error: { code: 500 } });
    const message = { storeId: STORE, backtestId: view.backtestId };
    expect(await runBacktestJob(run, message, () => 900_000, { lastAttempt: false })).toBe('failed');
    expect(memory.jobs.get(view.backtestId)).toMatchObject({ status: 'failed', attempts: 1 });
  });

  it("shows a job to its own store and flow only, and refuses a flow that is not the store's", async () => {
    const { f, memory, start } = setup();
    const view = await startBacktestJob(start, STORE, 'fl_cart', request);
    const deps = { jobs: memory.repository, clock: f.deps.clock };
    expect((await failure(getBacktestJob(deps, 'st_other', 'fl_cart', view.backtestId))).message).toBe(
      'Backtest not found',
    );
    expect((await failure(getBacktestJob(deps, STORE, 'fl_other', view.backtestId))).message).toBe(
      'Backtest not found',
    );
    expect((await failure(getBacktestJob(deps, STORE, 'fl_cart', 'bt_nope'))).message).toBe('Backtest not found');
    expect((await failure(startBacktestJob(start, STORE, 'fl_nope', request))).message).toBe('Flow not found');
  });

  it('removes a job whose message could not be queued', async () => {
    const { memory, start } = setup();
    const failing = { ...start, queue: { enqueue: async () => Promise.reject(new Error('queue down')) } };
    await expect(startBacktestJob(failing, STORE, 'fl_cart', request)).rejects.toThrow('queue down');
    expect(memory.jobs.size).toBe(0);
  });

  it('cuts the lists of an answer too large to keep, and says so', async () => {
    const run = (i: number) => ({
      runId: `run_${i}`,
      email: `p${i}@example.com`,
      triggerId: `t-${i}`,
      subject: { type: 'cart', id: `cart-${i}` },
      enteredAt: i,
      status: 'completed',
      emails: [{ stepId: 'only', subject: `Subject ${i} ${'x'.repeat(i % 97)}`, at: i }],
      recovered: [],
    });
    const answer = {
      runs: Array.from({ length: 2_000 }, (_, i) => run(i)),
      skipped: [],
      truncated: false,
    } as unknown as BacktestAnswer;
    const bytes = await packResult(answer, 8_000);
    expect(bytes.length).toBeLessThanOrEqual(8_000);
    const { brotliDecompressSync } = await import('node:zlib');
    const back = JSON.parse(brotliDecompressSync(bytes).toString()) as BacktestAnswer;
    expect(back.truncated).toBe(true);
    expect(back.runs.length).toBeLessThan(2_000);
    expect(back.runs[0]).toEqual(answer.runs[0]);
    // A JSON bound too: the GET answer stays under Lambda's response limit.
    const byChars = JSON.parse(
      brotliDecompressSync(await packResult(answer, 1_000_000, 50_000)).toString(),
    ) as BacktestAnswer;
    expect(JSON.stringify(byChars).length).toBeLessThanOrEqual(50_000);
    expect(byChars.truncated).toBe(true);
  });

  it('lets a store have two jobs queued or running at once: a third answers 429 until one finishes; other stores are not held', async () => {
    const { start, run, queued } = setup(1);
    const first = await startBacktestJob(start, STORE, 'fl_cart', request);
    await startBacktestJob(start, STORE, 'fl_cart', request);
    const third = await failure(startBacktestJob(start, STORE, 'fl_cart', request));
    expect(third).toMatchObject({ kind: 'rate_limited' });
    expect(third.message).toMatch(/^The store has 2 backtest jobs queued or running, the most at once/);
    expect(queued).toHaveLength(OPEN_JOBS_PER_STORE);
    // Another store is not held by this one's jobs.
    expect(await start.open.take('st_other', 'bt_other', OPEN_JOBS_PER_STORE, 0, 1)).toBe(true);
    // The first one finishes: its place is given back, and a repeated message gives back nothing more.
    await runBacktestJob(run, { storeId: STORE, backtestId: first.backtestId }, () => 900_000, { lastAttempt: false });
    await runBacktestJob(run, { storeId: STORE, backtestId: first.backtestId }, () => 900_000, { lastAttempt: false });
    await startBacktestJob(start, STORE, 'fl_cart', request);
    expect(await failure(startBacktestJob(start, STORE, 'fl_cart', request))).toMatchObject({ kind: 'rate_limited' });
  });
});
