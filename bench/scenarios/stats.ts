/**
 * Stats scenario: the attribution stats read kept counters, not events or orders, so at 100,000 contacts
 * and 10,000 attributed orders they answer in about the time of a single-item read. One local runtime (in memory):
 *
 * 1. a store with `--count` contacts (default 20,000, batch writes; the 100,000 with `--count stats=100000`,
 *    a minute more of seeding) and an abandoned-cart flow (its sender registered); nothing measured reads the
 *    contacts one by one (a read that did, 20,000 items against one, would show at this size too);
 * 2. a year of attribution: 10,000 paid orders spread over 365 days, each recovered (by the flow's steps) or influenced,
 *    written through the attribution port's counters as the worker would (store and flow, with its steps', per day), plus
 *    the funnel counts of the emails behind them, summed per scope and day before they are added (the counters end
 *    the same; one `add` per scope and day, not three per order);
 * 3. measured, alternating, `ROUNDS` requests each at the flows API's rate: `GET /api/v1/flows/{id}` (one item: the
 *    reference), `GET /api/v1/stats` over the year, and `GET /api/v1/flows/{id}/stats` over the year (with its steps).
 *
 *    Also the console's overview page, signed in, at its default range (30 days) and over the year.
 *
 * Targets: the stats' and the overview's median latency ≤ 1.5 × the single-item read's, from the same run.
 */
import { type ApiBody, apiCall } from '#bench/lib/api.ts';
import { formatNumber, round, sleep, summarize } from '#bench/lib/stats.ts';
import type { Metric, Result, Scenario, ScenarioOptions } from '#bench/scenario.ts';
import { startLocalRuntime } from '#local/runtime.ts';
import { seedContactCounts, seedContacts } from '#local/seed-contacts.ts';
import { dynamoAttribution } from '#shared/adapters/dynamodb/attribution.ts';
import { createMainAccount, createSubAccount } from '#shared/domain/accounts/manage-accounts.ts';
import { SESSION_COOKIE } from '#shared/domain/accounts/sign-in.ts';
import { countsFor, dayOf } from '#shared/domain/attribution/model.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import { newId } from '#shared/domain/ids.ts';
import { createStore } from '#shared/domain/stores/manage-stores.ts';
import { LIMITS } from '#shared/limits.ts';
import { accountAdminDeps } from '#shared/wiring/accounts.ts';
import { storeAdminDeps } from '#shared/wiring/store-admin.ts';

const DEFAULT_CONTACTS = 20_000;
const ORDERS = 10_000;
const DAYS = 365;
const ROUNDS = 40;
/** The least idle time before each read, after the previous answer. */
const IDLE_MS = 50;
const DAY_MS = 86_400_000;

/** A console page as the browser gets it, signed in (`cookie`). */
const page = async (url: string, cookie: string) => {
  const start = performance.now();
  const response = await fetch(url, { headers: { cookie } });
  await response.text();
  return { status: response.status, body: {} as ApiBody, ms: performance.now() - start };
};

/** A sub-account of the store's main account signed in through the sign-in link: its session cookie. */
const signIn = async (main: string, apiKey: string, mainAccountId: string, storeId: string) => {
  const username = `bench-${Date.now().toString(36)}`;
  const password = 'a long bench password 1';
  await createSubAccount(accountAdminDeps(), { mainAccountId, username, password, stores: [storeId] });
  const link = await apiCall(`${main}/api/v1/oauth`, apiKey, 'POST', { username, password });
  const url = (link.body.data as { oauthUrl?: string } | undefined)?.oauthUrl;
  if (link.status !== 200 || !url) throw new Error(`stats: the sign-in link answered ${link.status}`);
  const pressed = await fetch(url, { method: 'POST', redirect: 'manual', headers: { origin: new URL(url).origin } });
  const cookie = pressed.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`));
  if (!cookie) throw new Error(`stats: signing in answered ${pressed.status} without a session`);
  return cookie.split(';')[0] ?? '';
};

export const stats: Scenario = {
  name: 'stats',
  description: 'Attribution stats over a year (20,000 contacts, 10,000 orders) vs a single-item read: latency ratio',
  async run(options: ScenarioOptions): Promise<Result> {
    const { log } = options;
    const contacts = options.count ?? DEFAULT_CONTACTS;
    const runtime = await startLocalRuntime({ logLevel: 'ERROR' });
    runtime.setPollersPaused(true);
    try {
      const account = await createMainAccount(accountAdminDeps(), { name: 'Bench stats' });
      const { store, apiKey } = await createStore(storeAdminDeps(), {
        name: 'Bench stats store',
        type: 'direct',
        mainAccountId: account.mainAccountId,
      });
      const main = runtime.urls.main;
      const cookie = await signIn(main, apiKey, account.mainAccountId, store.storeId);
      const sender = await apiCall(`${main}/api/v1/senders`, apiKey, 'POST', { domain: 'stats.example' });
      if (sender.status !== 200) throw new Error(`stats: sender answered ${sender.status}`);
      const created = await apiCall(`${main}/api/v1/flows`, apiKey, 'POST', {
        preset: 'abandoned_cart',
        from: { email: 'shop@stats.example', name: 'Stats' },
      });
      const flow = created.body.data as { id: string; steps: { id: string; type: string }[] } | undefined;
      if (created.status !== 200 || !flow) throw new Error(`stats: flow answered ${created.status}`);
      const emailSteps = flow.steps.filter((s) => s.type === 'email').map((s) => s.id);

      log(`stats: seeding ${contacts} contacts`);
      const now = Date.now();
      const seedStart = performance.now();
      // Each contact's own creation second: counted at the end, whole (`seedContactCounts`), not added per bucket.
      const createdAt: number[] = [];
      for (let from = 0; from < contacts; from += 10_000) {
        const chunk: Customer[] = [];
        for (let i = from; i < Math.min(contacts, from + 10_000); i++) {
          const id = newId('ct');
          chunk.push({
            storeId: store.storeId,
            id,
            originId: `c-${i}`,
            email: `c${i}@stats.example`,
            platformTags: [],
            categoryTags: [],
            attributes: {},
            createdAt: Math.floor(now / 1000) - (i % (DAYS * 86_400)),
            updatedAt: now,
            revision: 1,
          });
        }
        for (const contact of chunk) createdAt.push(contact.createdAt);
        await seedContacts(chunk, { counters: false });
      }
      await seedContactCounts(store.storeId, createdAt);
      const contactsSeconds = (performance.now() - seedStart) / 1000;

      log(`stats: attributing ${ORDERS} orders over ${DAYS} days`);
      // What the worker adds order by order, summed per scope and day first: the counters end the same (each is a sum),
      // for one `add` per scope and day instead of three per order (60,000 `UpdateItem`s, most of the scenario's time).
      const attributeStart = performance.now();
      const attribution = dynamoAttribution();
      const sums = new Map<string, { scope: string; day: string; deltas: Record<string, number> }>();
      const sum = (scope: string, day: string, deltas: Readonly<Record<string, number>>) => {
        const key = `${scope}\n${day}`;
        const entry = sums.get(key) ?? { scope, day, deltas: {} };
        for (const [name, n] of Object.entries(deltas)) entry.deltas[name] = (entry.deltas[name] ?? 0) + n;
        sums.set(key, entry);
      };
      for (let n = 0; n < ORDERS; n++) {
        const at = now - (n % DAYS) * DAY_MS;
        const touch = {
          kind: 'flow' as const,
          flowId: flow.id,
          stepId: emailSteps[n % emailSteps.length] ?? 'email',
          runId: `run_${n}`,
          at,
        };
        const kind = n % 3 === 0 ? 'influenced' : 'recovered';
        sum(`flow#${flow.id}`, dayOf(at), { entered: 2 });
        const counts = countsFor(touch, {
          emailed: 3,
          delivered: 3,
          opened: 2,
          clicked: 1,
          [`${kind}Orders`]: 1,
          [`${kind}Revenue_EUR`]: 40 + (n % 60),
        });
        for (const c of counts) sum(c.scope, dayOf(at), c.deltas);
      }
      const adds = [...sums.values()];
      for (let i = 0; i < adds.length; i += 50) {
        await Promise.all(
          adds.slice(i, i + 50).map(({ scope, day, deltas }) => attribution.add(store.storeId, [scope], day, deltas)),
        );
      }
      const attributeSeconds = (performance.now() - attributeStart) / 1000;

      const from = dayOf(now - (DAYS - 1) * DAY_MS);
      const to = dayOf(now);
      const urls = {
        single: `${main}/api/v1/flows/${flow.id}`,
        store: `${main}/api/v1/stats?from=${from}&to=${to}`,
        flow: `${main}/api/v1/flows/${flow.id}/stats?from=${from}&to=${to}`,
        home: `${main}/back-office`,
        overview: `${main}/back-office/stores/${store.storeId}`,
        overviewYear: `${main}/back-office/stores/${store.storeId}?from=${from}&to=${to}`,
      };
      const samples: Record<keyof typeof urls, number[]> = {
        single: [],
        store: [],
        flow: [],
        home: [],
        overview: [],
        overviewYear: [],
      };
      // Each read starts at least `IDLE_MS` after the previous answer (what a read left running, e.g. its logging, is
      // over by then) and the flows API's bucket (the flow, the store's stats, the flow's stats) at least `gapMs` after
      // the bucket's previous read, start to start, at its rate; one request at a time. Every read waited `gapMs` after
      // the previous answer until 27 November 2026: 29 s of sleeping, where the 120 reads in the bucket need 12 s.
      const gapMs = Math.ceil(1000 / LIMITS.flowManagementPerSecond) + 20;
      const paced = new Set<keyof typeof urls>(['single', 'store', 'flow']);
      let lastPaced = Number.NEGATIVE_INFINITY;
      let orders = 0;
      log(`stats: ${ROUNDS} rounds of the six reads, ${IDLE_MS} ms apart, the flows API's ${gapMs} ms apart`);
      for (let round = 0; round < ROUNDS; round++) {
        for (const name of ['single', 'store', 'flow', 'home', 'overview', 'overviewYear'] as const) {
          const idleUntil = performance.now() + IDLE_MS;
          const until = paced.has(name) ? Math.max(idleUntil, lastPaced + gapMs) : idleUntil;
          await sleep(until - performance.now());
          if (paced.has(name)) lastPaced = performance.now();
          const answer =
            name === 'home' || name.startsWith('overview')
              ? await page(urls[name], cookie)
              : await apiCall(urls[name], apiKey);
          if (answer.status !== 200) throw new Error(`stats: ${name} answered ${answer.status}`);
          if (name === 'store') {
            const data = answer.body.data as { recovered: { orders: number }; influenced: { orders: number } };
            orders = data.recovered.orders + data.influenced.orders;
          }
          // The first round warms each function up; it is not counted.
          if (round > 0) samples[name].push(answer.ms);
        }
      }
      const single = summarize(samples.single);
      const store_ = summarize(samples.store);
      const flowStats = summarize(samples.flow);
      const home = summarize(samples.home);
      const overview = summarize(samples.overview);
      const overviewYear = summarize(samples.overviewYear);
      const metrics: Metric[] = [
        {
          key: 'store_over_single',
          label: 'GET /api/v1/stats (a year) ÷ a single-item read, median latency',
          value: round(store_.p50 / single.p50, 2),
          unit: '×',
          target: { op: '<=', value: 1.5 },
        },
        {
          key: 'flow_over_single',
          label: 'GET /api/v1/flows/{id}/stats (a year, with its steps) ÷ a single-item read, median latency',
          value: round(flowStats.p50 / single.p50, 2),
          unit: '×',
          target: { op: '<=', value: 1.5 },
        },
        {
          key: 'overview_over_single',
          label: 'Console overview (its default 30 days, signed in) ÷ a single-item read, median latency',
          value: round(overview.p50 / single.p50, 2),
          unit: '×',
          target: { op: '<=', value: 1.5 },
        },
        {
          key: 'overview_over_home',
          label: 'Console overview (30 days) ÷ the back office home (the same session check, no data), median latency',
          value: round(overview.p50 / home.p50, 2),
          unit: '×',
        },
        {
          key: 'overview_year_over_single',
          label: 'Console overview over a year ÷ a single-item read, median latency',
          value: round(overviewYear.p50 / single.p50, 2),
          unit: '×',
        },
        { key: 'single_p50', label: 'GET /api/v1/flows/{id}, median', value: round(single.p50, 1), unit: 'ms' },
        { key: 'store_p50', label: 'GET /api/v1/stats, median', value: round(store_.p50, 1), unit: 'ms' },
        { key: 'flow_p50', label: 'GET /api/v1/flows/{id}/stats, median', value: round(flowStats.p50, 1), unit: 'ms' },
        {
          key: 'orders_counted',
          label: 'Orders the store stats counted',
          value: orders,
          unit: 'orders',
          target: { op: '>=', value: ORDERS },
        },
      ];
      return {
        scenario: 'stats',
        title: `Attribution stats at ${formatNumber(contacts)} contacts and ${formatNumber(ORDERS)} orders`,
        metrics,
        notes: [
          `One store, ${formatNumber(contacts)} contacts (batch writes), an abandoned-cart flow with ${emailSteps.length} email steps, ${formatNumber(ORDERS)} orders attributed over ${DAYS} days through the attribution counters (the store's and the flow's, which hold its steps', per day and month; summed per scope and day before they are added, ${formatNumber(adds.length)} adds). Setup: contacts ${formatNumber(round(contactsSeconds, 1))} s, attribution ${formatNumber(round(attributeSeconds, 1))} s. Each read ${ROUNDS - 1} times after a warm-up round, alternating, one at a time, each ${IDLE_MS} ms or more after the previous answer and the flows API's (a flow, the stats) ${gapMs} ms or more apart, start to start (its ${LIMITS.flowManagementPerSecond}/s per store); latency = request to parsed JSON over HTTP on the local runtime.`,
          `Medians: single-item read ${formatNumber(single.p50)} ms (p99 ${formatNumber(single.p99)}), store stats ${formatNumber(store_.p50)} ms (p99 ${formatNumber(store_.p99)}), flow stats ${formatNumber(flowStats.p50)} ms (p99 ${formatNumber(flowStats.p99)}), back office home ${formatNumber(home.p50)} ms (p99 ${formatNumber(home.p99)}), overview ${formatNumber(overview.p50)} ms (p99 ${formatNumber(overview.p99)}), overview over a year ${formatNumber(overviewYear.p50)} ms (p99 ${formatNumber(overviewYear.p99)}). A year to today is read per scope as the days before its first whole month and its months, the current one from its month item (one BatchGetItem by key, ~15 items; ~42 with the days after the last whole month for a year ending before today); a flow's steps are on its flow's items; nothing scans orders or events.`,
        ],
        details: {
          contacts,
          orders: ORDERS,
          days: DAYS,
          rounds: ROUNDS,
          single,
          store: store_,
          flow: flowStats,
          home,
          overview,
          overviewYear,
          setupSeconds: {
            contacts: round(contactsSeconds, 1),
            attribution: round(attributeSeconds, 1),
            attributionAdds: adds.length,
          },
        },
      };
    } finally {
      await runtime.stop();
    }
  },
};
