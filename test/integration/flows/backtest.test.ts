/**
 * The flow backtest over HTTP on the local runtime (docs/backtest.md): the same events go to two stores, one keeping
 * the flow as a disabled draft, the other running it live; the draft's backtest over the period must answer what the
 * live flow then did (who entered, which emails by step and subject, who exited and who was skipped, and why, and the
 * recovered revenue). The handlers and the Scheduler emulator run on `Date.now()`, so the test moves it forward (the
 * cart hour, the day's wait) instead of only pulling pending schedules earlier: every recorded time then follows one
 * timeline, as it does in production.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamo } from '#shared/adapters/aws-clients.ts';
import { dynamoOpenBacktestJobs } from '#shared/adapters/dynamodb/backtest-jobs.ts';
import { keys } from '#shared/adapters/dynamodb/keys.ts';
import { dynamoStoreSlot } from '#shared/adapters/dynamodb/store-slot.ts';
import { tableName } from '#shared/adapters/dynamodb/table.ts';
import { QueryCommand } from '#shared/adapters/dynamodb-client.ts';
import { systemClock } from '#shared/clock.ts';
import { SYNC_BACKTEST_SLOT_SECONDS } from '#shared/domain/backtest/backtest.ts';
import { historyDays } from '#shared/domain/ingest/event-history.ts';
import { api } from '#test/support/webhooks.ts';
import {
  address,
  awaitMails,
  cartLine,
  definedFlow,
  event,
  eventually,
  type FlowView,
  flowRuns,
  mailsTo,
  newStore,
  SENDER,
  senderOf,
  settled,
  subscribedCustomer,
  type TestStore,
  uid,
} from './engine-support.ts';

const realNow = Date.now;
let skewMs = 0;
/** Moves the process's clock (handlers, Scheduler emulator) forward; timers scheduled before fall due. */
const jump = (ms: number) => {
  skewMs += ms;
};

const paid = {
  type: 'exit_if',
  condition: { match: 'all', conditions: [{ field: 'activity.order_paid_since_trigger', op: 'exists' }] },
};
const definition = (enabled: boolean) => ({
  name: 'Cart recovery draft',
  trigger: 'abandoned_cart',
  enabled,
  consent: 'subscribed',
  steps: [
    { ...paid, id: 'paid' },
    { type: 'email', id: 'first', from: SENDER, subject: 'Your cart, {{ contact.first_name }}', text: 'Come back' },
    { type: 'wait', id: 'a-day', seconds: 86_400 },
    { ...paid, id: 'paid-again' },
    { type: 'email', id: 'second', from: SENDER, subject: 'Still thinking?', text: 'Last call' },
  ],
});

let runtime: LocalRuntime;
let draftStore: TestStore;
let liveStore: TestStore;
let draft: FlowView;
let live: FlowView;
let from: number;
const ada = address('ada');
const bob = address('bob');
const cy = address('cy');
const eve = address('eve');
const bobsCart = uid('cart');
const order = { id: uid('order'), name: '#1001', order_status: 'paid', total_price: '39.80', currency: 'EUR' };

/** The same event to both stores. */
const both = async (endpoint: string, data: Record<string, unknown>) => {
  for (const store of [draftStore, liveStore]) await event(runtime, store, endpoint, data);
};
const cart = (email: string, token = uid('cart')) =>
  both('carts/create', {
    token,
    email,
    checkout_url: `https://shop.example/cart/${token}`,
    line_items: [cartLine('p-1', 'Desk lamp', '19.90')],
  });

interface BacktestBody {
  summary: {
    entered: number;
    emails: number;
    skipped: Record<string, number>;
    exited: Record<string, number>;
    recovered: unknown;
  };
  runs: { email: string; status: string; emails: { stepId: string; subject: string }[]; exit?: { reason: string } }[];
  skipped: { email?: string; reason: string }[];
}

beforeAll(async () => {
  Date.now = () => realNow() + skewMs;
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
  draftStore = await newStore('Backtest Draft Shop');
  liveStore = await newStore('Backtest Live Shop');
  draft = await definedFlow(runtime, draftStore, definition(false));
  live = await definedFlow(runtime, liveStore, definition(true));
  from = Math.floor(Date.now() / 1000) - 60;
  for (const store of [draftStore, liveStore]) {
    for (const email of [ada, bob, eve]) await subscribedCustomer(runtime, store, uid('cust'), email);
    await subscribedCustomer(runtime, store, uid('cust'), cy, { email_marketing_consent: { state: 'not_subscribed' } });
  }
  await cart(ada);
  await cart(bob, bobsCart);
  await cart(cy);
  const evesCart = uid('cart');
  await cart(eve, evesCart);
  // Eve pays within the hour: her cart is gone when its timer fires.
  await both('orders/paid', {
    ...order,
    id: uid('order'),
    customer_id: uid('c'),
    email: eve,
    cart_token: evesCart,
    line_items: [cartLine('p-1', 'Desk lamp', '19.90')],
  });
  await settled(runtime);

  jump(61 * 60_000);
  await awaitMails(runtime, ada, 1);
  await awaitMails(runtime, bob, 1);
  await settled(runtime);
  // Bob pays his cart after its first email: recovered, and his run exits at the next check.
  await both('orders/paid', {
    ...order,
    customer_id: uid('c'),
    email: bob,
    cart_token: bobsCart,
    line_items: [cartLine('p-1', 'Desk lamp', '19.90')],
  });
  await settled(runtime);

  jump(24 * 3600_000 + 2 * 60_000);
  await awaitMails(runtime, ada, 2);
  await eventually(
    'the live runs to end',
    async () => {
      const { list } = await flowRuns(runtime, liveStore, live.id);
      return list.filter((item) => item.run?.status === 'completed' || item.run?.status === 'exited').length >= 2
        ? true
        : undefined;
    },
    30_000,
  );
  await settled(runtime);
}, 240_000);

afterAll(async () => {
  await runtime?.stop();
  Date.now = realNow;
});

const backtest = async (store: TestStore, flowId: string, body: Record<string, unknown>) =>
  api(runtime, store.apiKey, 'POST', `/api/v1/flows/${flowId}/backtest`, body);

describe('flow backtest over HTTP', () => {
  it('answers for the disabled draft what the live flow then did on the same events', async () => {
    const to = Math.floor(Date.now() / 1000) + 60;
    const answer = await backtest(draftStore, draft.id, { from, to });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const result = (answer.body as { data: BacktestBody }).data;

    const { list } = await flowRuns(runtime, liveStore, live.id);
    const liveRuns = list.filter((item) => item.outcome === 'entered');
    const liveView = await Promise.all(
      liveRuns.map(async (item) => ({
        email: item.email,
        status: item.run?.status,
        steps: (item.run?.events ?? [])
          .filter((e) => e.type === 'emailed')
          .map((e) => (e as { stepId?: string }).stepId),
        exit: item.run?.events.find((e) => e.type === 'exited')?.reason,
        subjects: (await mailsTo(runtime, item.email ?? '')).map((mail) => mail.subject).sort(),
      })),
    );
    const backtestView = result.runs.map((run) => ({
      email: run.email,
      status: run.status,
      steps: run.emails.map((e) => e.stepId),
      exit: run.exit?.reason,
      subjects: run.emails.map((e) => e.subject).sort(),
    }));
    const byEmail = (a: { email?: string | null }, b: { email?: string | null }) =>
      String(a.email).localeCompare(String(b.email));
    expect(backtestView.sort(byEmail)).toEqual(liveView.sort(byEmail));
    expect(backtestView.map((r) => [r.email, r.steps, r.exit])).toEqual(
      [
        [ada, ['first', 'second'], undefined],
        [bob, ['first'], 'exit_if'],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
    expect(result.runs.find((r) => r.email === ada)?.emails.map((e) => e.subject)).toEqual([
      'Your cart, Ada',
      'Still thinking?',
    ]);

    const liveSkips = list.filter((item) => item.outcome === 'skipped').map((item) => [item.email, item.reason]);
    expect(result.skipped.map((s) => [s.email, s.reason])).toEqual(liveSkips);
    expect(liveSkips).toEqual([[cy, 'no_consent']]);

    // The live order's count reaches the stats through the counters queue, seconds after the order applied.
    const liveRecovered = await eventually('the live recovered order counted', async () => {
      const stats = await api(runtime, liveStore.apiKey, 'GET', `/api/v1/flows/${live.id}/stats`);
      const recovered = (stats.body as { data: { recovered: { orders: number } } }).data.recovered;
      return recovered.orders > 0 ? recovered : undefined;
    });
    expect(result.summary.recovered).toEqual(liveRecovered);
    expect(result.summary.recovered).toEqual({ orders: 1, revenue: { EUR: '39.80' } });
    expect(result.summary).toMatchObject({ entered: 2, emails: 3, skipped: { no_consent: 1 }, exited: { exit_if: 1 } });
  });

  it("answers 400 for a range longer than 31 days or an unknown field, and 404 for another store's flow", async () => {
    const tooLong = await backtest(draftStore, draft.id, { from, to: from + 32 * 86_400 });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body).toEqual({ code: 400, message: 'a backtest covers at most 31 days (from … to is 32 days)' });

    const foreign = await backtest(draftStore, live.id, { from, to: from + 3600 });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ code: 404, message: 'Flow not found' });

    const unknownField = await backtest(draftStore, draft.id, { from, to: from + 3600, days: 3 });
    expect(unknownField.body).toEqual({ code: 400, message: 'body has an unknown field "days"' });
  });

  it('answers 429 while another synchronous backtest of the store holds its slot; other stores go on', async () => {
    const to = Math.floor(Date.now() / 1000) + 60;
    const slot = dynamoStoreSlot(systemClock, 'backtestSlot');
    const running = await slot.claim(draftStore.storeId, SYNC_BACKTEST_SLOT_SECONDS);
    if (!running.claimed) throw new Error('the slot was held already');
    const path = `/api/v1/flows/${draft.id}/backtest`;
    const refused = await api(runtime, draftStore.apiKey, 'POST', path, { from, to }, { raw: true });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      code: 429,
      message: expect.stringMatching(/^A backtest of this store is already running: one synchronous backtest/),
    });
    expect(refused.headers.get('retry-after')).toBe(String(SYNC_BACKTEST_SLOT_SECONDS));
    expect((await backtest(liveStore, live.id, { from, to })).status).toBe(200);

    await slot.release(draftStore.storeId, running.claimId);
    expect((await backtest(draftStore, draft.id, { from, to })).status).toBe(200);
    // The answered backtest gave its slot back.
    const after = await slot.claim(draftStore.storeId, 1);
    expect(after.claimed).toBe(true);
    if (after.claimed) await slot.release(draftStore.storeId, after.claimId);
  });

  it('replays an unsaved definition given in the body instead of the stored one', async () => {
    const to = Math.floor(Date.now() / 1000) + 60;
    const changed = {
      ...definition(false),
      steps: [{ type: 'email', id: 'only', from: SENDER, subject: 'Draft for {{ contact.first_name }}', text: 'x' }],
    };
    const own = JSON.parse(JSON.stringify(changed).replaceAll(SENDER.email, senderOf(draftStore).email));
    const answer = await backtest(draftStore, draft.id, { from, to, definition: own });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const result = (answer.body as { data: BacktestBody }).data;
    expect(result.runs.map((r) => r.emails.map((e) => e.subject))).toEqual([['Draft for Ada'], ['Draft for Ada']]);
    expect(result.summary.recovered).toEqual({ orders: 1, revenue: { EUR: '39.80' } });
  });

  it('runs as a job: 202 with its id, its progress, then the same answer; 404 for another store or flow', async () => {
    const to = Math.floor(Date.now() / 1000) + 60;
    const started = await api(runtime, draftStore.apiKey, 'POST', `/api/v1/flows/${draft.id}/backtests`, { from, to });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const job = (started.body as { code: number; data: { backtestId: string; status: string; progress: unknown } })
      .data;
    expect(started.body).toMatchObject({ code: 202, data: { flowId: draft.id, status: 'queued', from, to } });
    expect(job.backtestId).toMatch(/^bt_[A-Za-z0-9]{20}$/);
    expect(job.progress).toEqual({ events: 0, percent: 0 });

    const path = `/api/v1/flows/${draft.id}/backtests/${job.backtestId}`;
    const seen: string[] = [];
    const done = await eventually(
      'the backtest job to finish',
      async () => {
        const got = await api(runtime, draftStore.apiKey, 'GET', path);
        expect(got.status).toBe(200);
        const data = (got.body as { data: { status: string; result?: BacktestBody & { tookMs: number } } }).data;
        seen.push(data.status);
        return data.status === 'succeeded' || data.status === 'failed' ? data : undefined;
      },
      30_000,
    );
    expect(done).toMatchObject({ status: 'succeeded', progress: { percent: 100 } });
    expect(seen.every((status) => ['queued', 'running', 'succeeded'].includes(status))).toBe(true);
    const sync = await backtest(draftStore, draft.id, { from, to });
    const { tookMs: _a, ...viaJob } = (done?.result ?? {}) as BacktestBody & { tookMs: number };
    const { tookMs: _b, ...direct } = (sync.body as { data: BacktestBody & { tookMs: number } }).data;
    expect(viaJob).toEqual(direct);
    expect(viaJob.summary).toMatchObject({ entered: 2, emails: 3 });

    // Another store asking for this job, by the draft's flow or its own: not found, as a job that does not exist.
    const notFound = { code: 404, message: 'Backtest not found' };
    const foreign = await api(runtime, liveStore.apiKey, 'GET', path);
    expect({ status: foreign.status, body: foreign.body }).toEqual({ status: 404, body: notFound });
    const ownFlow = await api(runtime, liveStore.apiKey, 'GET', `/api/v1/flows/${live.id}/backtests/${job.backtestId}`);
    expect({ status: ownFlow.status, body: ownFlow.body }).toEqual({ status: 404, body: notFound });
    const malformed = await api(runtime, draftStore.apiKey, 'GET', `/api/v1/flows/${draft.id}/backtests/nope`);
    expect({ status: malformed.status, body: malformed.body }).toEqual({ status: 404, body: notFound });
    const foreignStart = await api(runtime, liveStore.apiKey, 'POST', `/api/v1/flows/${draft.id}/backtests`, {
      from,
      to,
    });
    expect({ status: foreignStart.status, body: foreignStart.body }).toEqual({
      status: 404,
      body: { code: 404, message: 'Flow not found' },
    });
  });

  it("holds a store to two jobs queued or running (429 for a third), and another store's job runs meanwhile", async () => {
    const to = Math.floor(Date.now() / 1000) + 60;
    const start = (store: typeof draftStore, flowId: string) =>
      api(runtime, store.apiKey, 'POST', `/api/v1/flows/${flowId}/backtests`, { from, to }, { raw: true });
    // Two jobs of the store still open (jobs this small finish in milliseconds here, so they are held in the table).
    const open = dynamoOpenBacktestJobs();
    const now = Date.now();
    for (const id of ['bt_heldaaaaaaaaaaaaaaaaa', 'bt_heldbbbbbbbbbbbbbbbbb']) {
      expect(await open.take(draftStore.storeId, id, 2, now, now + 3_600_000)).toBe(true);
    }
    const third = await start(draftStore, draft.id);
    expect(third.status).toBe(429);
    expect(third.body).toMatchObject({
      code: 429,
      message: expect.stringMatching(/^The store has 2 backtest jobs queued or running, the most at once/),
    });
    const other = await start(liveStore, live.id);
    expect(other.status, JSON.stringify(other.body)).toBe(202);
    const otherId = (other.body as { data: { backtestId: string } }).data.backtestId;
    const finished = await eventually(
      "the other store's job to finish",
      async () => {
        const got = await api(runtime, liveStore.apiKey, 'GET', `/api/v1/flows/${live.id}/backtests/${otherId}`);
        const data = (got.body as { data: { status: string } }).data;
        return data.status === 'succeeded' || data.status === 'failed' ? data : undefined;
      },
      20_000,
    );
    expect(finished).toMatchObject({ status: 'succeeded' });
    // One of the store's jobs finishes: it may start another.
    await open.release(draftStore.storeId, 'bt_heldaaaaaaaaaaaaaaaaa');
    expect((await start(draftStore, draft.id)).status).toBe(202);
  });

  it('answers the same once the ingest worker’s compaction timers have compacted its days (one item a day)', async () => {
    // Today gets three more worker batches (the days before may be compacted already: the clock passed their timers).
    const today = historyDays(Date.now(), Date.now() + 1)[0] as string;
    for (const n of [1, 2, 3]) {
      await event(runtime, draftStore, 'page/viewed', {
        email: ada,
        product_id: `p-${n}`,
        url: 'https://shop.example/p',
      });
      await settled(runtime);
    }
    const to = Math.floor(Date.now() / 1000) + 60;
    const before = await backtest(draftStore, draft.id, { from, to });
    expect(before.status, JSON.stringify(before.body)).toBe(200);
    const itemsOf = async (day: string) => {
      const { Items } = await dynamo().send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': keys.eventHistory(draftStore.storeId, day).pk },
        }),
      );
      return Items?.length ?? 0;
    };
    expect(await itemsOf(today)).toBeGreaterThanOrEqual(3);

    // Each day's timer, set by the ingest worker, is due at most four hours after the day ends.
    jump(2 * 86_400_000);
    const days = historyDays(from * 1000, to * 1000);
    await eventually(
      'the timer worker to compact each day',
      async () => ((await Promise.all(days.map(itemsOf))).every((n) => n === 1) ? true : undefined),
      30_000,
    );
    const after = await backtest(draftStore, draft.id, { from, to });
    const { tookMs: _a, ...answerBefore } = (before.body as { data: BacktestBody & { tookMs: number } }).data;
    const { tookMs: _b, ...answerAfter } = (after.body as { data: BacktestBody & { tookMs: number } }).data;
    expect(answerAfter).toEqual(answerBefore);
    expect(answerAfter.summary).toMatchObject({ entered: 2, emails: 3 });
  });
});
