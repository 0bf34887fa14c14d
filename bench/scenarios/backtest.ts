/**
 * Backtest scenario: one `POST /api/v1/flows/{id}/backtest` over 30 days of history holding `--count`
 * events a day (default 10,000: 300,000 events), on the local runtime (in memory).
 *
 * 1. a store with 20,000 contacts (70 % subscribed; batch writes) and the abandoned-cart preset (its sender registered);
 * 2. the event history seeded directly, while the contacts are written, as the daily compaction leaves it (docs/backtest.md
 *    "Compaction": each day's events cut and packed by the compaction's own `DayPacker` and `packGroup`, put through
 *    the history adapter; four items a day here): per day, in time order, carts created and updated, page views,
 *    checkouts, and paid orders (half of them paying an earlier cart); the seeding is setup, timed apart
 *    (`seed_seconds`, and its parts in the details);
 * 3. measured: the backtest of the 30 days over HTTP (the route stops at its 24 s budget under API Gateway's 29 s and
 *    answers 422, saying how far it got), then the same use case in-process with the budget lifted: the whole period;
 *    then the same as a job over HTTP (`POST …/backtests` → 202, the backtest worker, `GET` each second until done).
 *
 * Target: the whole period in ≤ 60 s (the issue), in-process and as a job.
 */
import { apiCall } from '#bench/lib/api.ts';
import { profiled } from '#bench/lib/profile.ts';
import { sleep } from '#bench/lib/stats.ts';
import type { Metric, Result, Scenario, ScenarioOptions } from '#bench/scenario.ts';
import { startLocalRuntime } from '#local/runtime.ts';
import { seedContacts } from '#local/seed-contacts.ts';
import { dynamoEventHistory } from '#shared/adapters/dynamodb/event-history.repository.ts';
import { backtestFlow } from '#shared/domain/backtest/backtest.ts';
import { BACKTEST_LIMITS } from '#shared/domain/backtest/model.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import { newId } from '#shared/domain/ids.ts';
import { DayPacker, type PackGroup, packGroup } from '#shared/domain/ingest/history-compaction.ts';
import { createStore } from '#shared/domain/stores/manage-stores.ts';
import { backtestDeps } from '#shared/wiring/backtest.ts';
import { storeAdminDeps } from '#shared/wiring/store-admin.ts';

const DEFAULT_PER_DAY = 10_000;
const DAYS = 30;
const CONTACTS = 20_000;
const DAY_MS = 86_400_000;

/** A deterministic pseudo-random sequence (the same history every run). */
const random = (seed: number) => {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
};

const line = (n: number) => ({
  product_id: `p-${n % 200}`,
  variant_id: `v-${n % 200}`,
  title: `Product ${n % 200}`,
  quantity: 1 + (n % 3),
  price: `${10 + (n % 90)}.90`,
  product_image_url: `https://shop.example/p-${n % 200}.jpg`,
});

/** One day's events, in time order: the endpoint and the data as the API queued it. */
export const dayOfEvents = (day: number, perDay: number, next: () => number) => {
  const carts: { token: string; email: string }[] = [];
  const events: { endpoint: string; at: number; data: Record<string, unknown> }[] = [];
  for (let i = 0; i < perDay; i++) {
    const at = day + Math.floor((i * DAY_MS) / perDay);
    const who = Math.floor(next() * CONTACTS);
    const email = `c${who}@backtest.example`;
    const roll = next();
    if (roll < 0.3) {
      const token = `cart-${day}-${i}`;
      carts.push({ token, email });
      events.push({
        endpoint: 'carts/create',
        at,
        data: { token, email, checkout_url: `https://shop.example/${token}`, line_items: [line(i), line(i + 7)] },
      });
    } else if (roll < 0.4 && carts.length > 0) {
      const cart = carts[Math.floor(next() * carts.length)] as { token: string; email: string };
      events.push({ endpoint: 'carts/update', at, data: { token: cart.token, line_items: [line(i)] } });
    } else if (roll < 0.75) {
      events.push({
        endpoint: 'page/viewed',
        at,
        data: { email, product_id: `p-${i % 200}`, url: 'https://shop.example/p', timestamp: Math.floor(at / 1000) },
      });
    } else if (roll < 0.85) {
      events.push({
        endpoint: 'checkouts/create',
        at,
        data: {
          token: `co-${day}-${i}`,
          email,
          total_price: '49.90',
          line_items: [line(i)],
          abandoned_checkout_url: 'https://shop.example/co',
        },
      });
    } else {
      const paid = next() < 0.5 ? carts[Math.floor(next() * carts.length)] : undefined;
      events.push({
        endpoint: 'orders/paid',
        at,
        data: {
          id: `o-${day}-${i}`,
          customer_id: `c-${who}`,
          email: paid?.email ?? email,
          name: `#${i}`,
          order_status: 'paid',
          total_price: '59.80',
          currency: 'EUR',
          line_items: [line(i)],
          ...(paid ? { cart_token: paid.token } : {}),
        },
      });
    }
  }
  return events;
};

export const backtest: Scenario = {
  name: 'backtest',
  description: 'One flow backtest of 30 days × 10,000 events a day (abandoned-cart preset, 20,000 contacts): wall time',
  async run(options: ScenarioOptions): Promise<Result> {
    const { log } = options;
    const perDay = options.count ?? DEFAULT_PER_DAY;
    const runtime = await startLocalRuntime({ logLevel: 'ERROR' });
    runtime.setPollersPaused(true);
    try {
      const { store, apiKey } = await createStore(storeAdminDeps(), { name: 'Bench backtest store', type: 'direct' });
      const main = runtime.urls.main;
      const sender = await apiCall(`${main}/api/v1/senders`, apiKey, 'POST', { domain: 'backtest.example' });
      if (sender.status !== 200) throw new Error(`backtest: sender answered ${sender.status}`);
      const created = await apiCall(`${main}/api/v1/flows`, apiKey, 'POST', {
        preset: 'abandoned_cart',
        from: { email: 'shop@backtest.example', name: 'Bench' },
        enabled: false,
      });
      const flowId = (created.body.data as { id?: string } | undefined)?.id;
      if (created.status !== 200 || !flowId) throw new Error(`backtest: flow answered ${created.status}`);

      // Setup, not measured: the contacts' batch writes are started first and go on (dynalite's thread serves them)
      // while the history is packed; each day's items are written while the next day is packed.
      log(`backtest: seeding ${CONTACTS} contacts and ${DAYS} days × ${perDay} events of history`);
      const seedStart = performance.now();
      const now = Date.now();
      const contacts: Customer[] = Array.from({ length: CONTACTS }, (_, i) => ({
        storeId: store.storeId,
        id: newId('ct'),
        originId: `c-${i}`,
        email: `c${i}@backtest.example`,
        firstName: `Name${i}`,
        platformTags: [],
        categoryTags: [],
        attributes: {},
        ...(i % 10 < 7 ? { emailConsent: { state: 'subscribed' as const, updatedAt: 1 } } : {}),
        createdAt: Math.floor(now / 1000) - 90 * 86_400,
        updatedAt: now,
        revision: 1,
      }));
      let contactsSeconds = 0;
      const contactsSeeded = (async () => {
        for (let i = 0; i < CONTACTS; i += 5_000) await seedContacts(contacts.slice(i, i + 5_000));
        contactsSeconds = (performance.now() - seedStart) / 1000;
      })();
      // Awaited after the history; a failure meanwhile must not go unhandled.
      contactsSeeded.catch(() => undefined);

      const from = Math.floor((now - (DAYS + 1) * DAY_MS) / DAY_MS) * DAY_MS;
      const to = from + DAYS * DAY_MS;
      const next = random(42);
      const expiresAt = Math.floor(now / 1000) + 90 * 86_400;
      // Through the adapter the compaction puts its packs with (one `PutItem` per pack).
      const history = dynamoEventHistory();
      let seq = 0;
      let packs = 0;
      let packMs = 0;
      let written: Promise<unknown> = Promise.resolve();
      for (let day = from; day < to; day += DAY_MS) {
        // What a store's history is once its days are compacted (docs/backtest.md "Compaction"): each day's events cut
        // and packed as the compaction cuts and packs them (`DayPacker`, `packGroup`: a pack per MiB of the events'
        // JSON, here four a day), compressed in libuv's pool; each day's puts overlap the next day's packing.
        const packStart = performance.now();
        const packer = new DayPacker();
        const groups: PackGroup[] = [];
        for (const event of dayOfEvents(day, perDay, next)) {
          const group = packer.add({
            storeId: store.storeId,
            sourceId: `bt-${++seq}`,
            endpoint: event.endpoint,
            interface: 'general',
            acceptedAt: event.at,
            data: event.data,
          });
          if (group) groups.push(group);
        }
        const rest = packer.rest();
        if (rest) groups.push(rest);
        const dayPacks = (await Promise.all(groups.map(packGroup))).flat();
        packMs += performance.now() - packStart;
        packs += dayPacks.length;
        await written;
        written = Promise.all(dayPacks.map((pack) => history.put(store.storeId, pack, expiresAt)));
      }
      await written;
      const historySeconds = (performance.now() - seedStart) / 1000;
      await contactsSeeded;
      const seedSeconds = (performance.now() - seedStart) / 1000;

      log('backtest: one backtest of the 30 days over HTTP (the route stops at its 24 s budget)');
      const cpuBefore = process.cpuUsage();
      const answer = await apiCall(`${main}/api/v1/flows/${flowId}/backtest`, apiKey, 'POST', {
        from: from / 1000,
        to: to / 1000,
      });
      const cpu = process.cpuUsage(cpuBefore);
      const data = answer.body.data as
        | { replayed: { events: number; timers: number }; summary: Record<string, unknown>; tookMs: number }
        | undefined;

      // The same backtest as the route runs it (same use case, same adapters), without the route's time budget: how
      // long the whole period takes, which is the issue's figure.
      log('backtest: the same backtest in-process, without the time budget');
      const fullStart = performance.now();
      const full = await profiled(options.profile, 'backtest-replay', () =>
        backtestFlow({ ...backtestDeps(), limits: { timeBudgetMs: 3_600_000 } }, store.storeId, flowId, {
          from: from / 1000,
          to: to / 1000,
          limit: BACKTEST_LIMITS.defaultListed,
        }),
      );
      const fullSeconds = (performance.now() - fullStart) / 1000;
      log(`backtest: ${full.replayed.events} events in ${fullSeconds.toFixed(1)} s`);

      // The replay above held this process's event loop for most of its run (without a progress callback its awaits
      // are microtasks): the keep-alive connection of the HTTP call before it outlived the local gateway's keep-alive
      // timeout (5 s) meanwhile, but neither the server's timer nor fetch's own could run. A request sent at once went
      // out on that connection, and the server's timer, run right after, closed it under the request: `fetch failed`
      // (read ECONNRESET). Turning the loop for a moment first lets both timers run: the next request opens a new
      // connection.
      await sleep(1_000);

      // The same backtest as a job over HTTP: 202, then the worker (the local runtime's poller of the backtests
      // queue) runs it; polled every second until it has finished.
      log('backtest: the same backtest as a job over HTTP (POST …/backtests, then GET until it finishes)');
      runtime.setPollersPaused(false);
      const jobStart = performance.now();
      const started = await apiCall(`${main}/api/v1/flows/${flowId}/backtests`, apiKey, 'POST', {
        from: from / 1000,
        to: to / 1000,
      });
      const backtestId = (started.body.data as { backtestId?: string } | undefined)?.backtestId;
      if (started.status !== 202 || !backtestId) throw new Error(`backtest: job start answered ${started.status}`);
      let job: { status: string; progress: { events: number }; result?: { replayed: { events: number } } } | undefined;
      let polls = 0;
      let failedPolls = 0;
      while (performance.now() - jobStart < 900_000) {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        polls++;
        // A poll may fail while the worker's replay holds the one process's event loop: counted, and polled again.
        const got = await apiCall(`${main}/api/v1/flows/${flowId}/backtests/${backtestId}`, apiKey).catch(
          () => undefined,
        );
        if (got?.status !== 200) {
          failedPolls++;
          continue;
        }
        job = got.body.data as typeof job;
        if (job?.status === 'succeeded' || job?.status === 'failed') break;
        if (polls % 10 === 0) log(`backtest: job ${job?.status}, ${job?.progress.events ?? 0} events replayed`);
      }
      const jobSeconds = (performance.now() - jobStart) / 1000;
      log(`backtest: job ${job?.status} after ${jobSeconds.toFixed(1)} s`);

      const metrics: Metric[] = [
        {
          key: 'backtest_seconds',
          label: `backtest of ${DAYS} days × ${perDay} events a day (in-process, no time budget)`,
          value: Math.round(fullSeconds * 10) / 10,
          unit: 's',
          target: { op: '<=', value: 60 },
        },
        {
          key: 'job_seconds',
          label: `the same as a job over HTTP (202, then GET each second): ${job?.status ?? 'unfinished'} after`,
          value: Math.round(jobSeconds * 10) / 10,
          unit: 's',
          target: { op: '<=', value: 60 },
        },
        {
          key: 'job_polls',
          label: 'job polls (GET each second), of which failed',
          value: polls,
          unit: `polls (${failedPolls} failed)`,
        },
        {
          key: 'job_events',
          label: 'events the job replayed',
          value: job?.result?.replayed.events ?? job?.progress.events ?? 0,
          unit: 'events',
        },
        { key: 'events_replayed', label: 'events replayed', value: full.replayed.events, unit: 'events' },
        { key: 'timers_fired', label: 'simulated timers fired', value: full.replayed.timers, unit: 'timers' },
        { key: 'runs_entered', label: 'runs entered', value: full.summary.entered, unit: 'runs' },
        { key: 'emails', label: 'emails that would have been sent', value: full.summary.emails, unit: 'emails' },
        {
          key: 'http_seconds',
          label: `the same over HTTP: answered ${answer.status}${data ? '' : ' (past its budget)'} after`,
          value: Math.round(answer.ms / 100) / 10,
          unit: 's',
        },
        {
          key: 'http_events',
          label: 'events the HTTP call replayed (all of them when it answered 200)',
          value: data?.replayed.events ?? Number(/replayed (\d+) events/.exec(answer.body.message ?? '')?.[1] ?? 0),
          unit: 'events',
        },
        {
          key: 'cpu_seconds',
          label: 'process CPU during the HTTP call',
          value: Math.round((cpu.user + cpu.system) / 1000) / 1000,
          unit: 's',
        },
        {
          key: 'history_items',
          label: 'history items (compacted days: a pack per MiB of JSON) read',
          value: packs,
          unit: 'items',
        },
        {
          key: 'seed_seconds',
          label: 'seeding the contacts and the history, side by side (context)',
          value: Math.round(seedSeconds * 10) / 10,
          unit: 's',
        },
      ];
      return {
        scenario: 'backtest',
        title: `Flow backtest: ${DAYS} days × ${perDay} events`,
        metrics,
        notes: [
          `HTTP answered ${answer.status}${answer.status === 200 ? '' : `: ${answer.body.message ?? ''}`}`,
          `the route's own limits: ${BACKTEST_LIMITS.maxEvents} events, ${BACKTEST_LIMITS.timeBudgetMs / 1000} s`,
          'one process: the runtime, dynalite (in memory) and the replay share one event loop',
        ],
        details: {
          summary: full.summary,
          http: data?.summary ?? answer.body,
          status: answer.status,
          setupSeconds: {
            contacts: Math.round(contactsSeconds * 10) / 10,
            history: Math.round(historySeconds * 10) / 10,
            packing: Math.round(packMs / 100) / 10,
            all: Math.round(seedSeconds * 10) / 10,
          },
        },
      };
    } finally {
      await runtime.stop();
    }
  },
};
