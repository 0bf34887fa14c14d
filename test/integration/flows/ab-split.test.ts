/**
 * A/B split and holdout over HTTP on the local runtime (docs/flows.md "A/B splits and holdout", docs/attribution.md
 * "A/B groups"): 1,000 contacts pay an order, each starting a run of an order-paid flow with a 50/50 split and a 10 %
 * holdout. The groups come out near 45/45/10, held-out contacts get no email (the local SES records every send), a
 * returning contact takes the same branch again, and the flow's stats show each group with the orders its contacts
 * paid after entry.
 *
 * The runs are spread over 4 stores (250 contacts each, one flow each, the same definition): a store may send 40
 * events and start 50 runs per second (docs/limits.md), so one store could not feed 1,000 runs in under 25 s. Each
 * flow draws its own groups (the flow id is in the hash), so the 1,000 runs are 1,000 independent draws all the same.
 *
 * Measured here (2 shared cores, load average 8–10): 1,000 runs accepted, run and settled in 114–141 s alone, 246 s
 * beside the other flows integration files; the local
 * runtime is CPU-bound at roughly 100–150 ms of its one thread per order-to-email (mostly AWS SDK client work against
 * the emulators: a profile of 200 runs spent 32 s in the main thread), not held by the rate limits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import type { Flow } from '#shared/domain/flows/flow.ts';
import { groupOf } from '#shared/domain/flows/split.ts';
import { postEvent } from '#test/support/local.ts';
import { api } from '#test/support/webhooks.ts';
import {
  definedFlow,
  eventually,
  type FlowView,
  mailStore,
  newStore,
  SENDER,
  settled,
  type TestStore,
  uid,
} from './engine-support.ts';

const STORES = 4;
const CONTACTS_PER_STORE = 250;
/** Contacts per store who pay a second order (a second run, and an order measured for their first run's group). */
const RETURNING = 25;

let runtime: LocalRuntime;
const shops: { store: TestStore; flow: FlowView; contacts: string[] }[] = [];

const mail = (id: string, subject: string) => ({
  type: 'email',
  id,
  from: SENDER,
  subject,
  text: 'Thank you for your order {{ order.name }}',
});

const definition = {
  name: 'Order thanks A/B',
  trigger: 'order_paid',
  consent: 'transactional',
  holdoutPercent: 10,
  steps: [
    {
      type: 'split',
      id: 'thanks-test',
      branches: [
        { id: 'a', percent: 50, steps: [mail('mail-a', 'Thanks (A)')] },
        { id: 'b', percent: 50, steps: [mail('mail-b', 'Thanks (B)')] },
      ],
    },
  ],
};

/** `orders/paid` for `email`, retried after the store's event rate says to wait (429 with Retry-After). */
const paid = async (store: TestStore, email: string, total: string) => {
  const body = {
    endpoint: 'orders/paid',
    source_id: uid('src').slice(0, 50),
    data: {
      id: uid('order'),
      name: '#1',
      customer_id: email,
      email,
      order_status: 'paid',
      total_price: total,
      currency: 'EUR',
      line_items: [{ id: 'l1', product_id: 'p-1', title: 'Desk lamp', quantity: 1, price: total }],
    },
  };
  for (;;) {
    const answer = await postEvent(runtime.urls.main, store.apiKey, body);
    if (answer.status !== 429) {
      expect(answer.body, email).toEqual({ code: 200, message: 'ok' });
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, Number(answer.headers.get('retry-after') ?? 1) * 1000));
  }
};

/** Sends `emails` at about 35 events per second (under the store's 40), 7 at a time. */
const payAll = async (store: TestStore, emails: readonly string[], total: string) => {
  for (let i = 0; i < emails.length; i += 7) {
    const started = Date.now();
    await Promise.all(emails.slice(i, i + 7).map((email) => paid(store, email, total)));
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 200 - (Date.now() - started))));
  }
};

interface RunItem {
  readonly email: string | null;
  readonly outcome: string;
  readonly run?: { id: string; status: string; group?: string; events: { type: string; reason?: string }[] };
}

/** Every evaluation of the flow (the explain view, page by page). */
const allRuns = async (store: TestStore, flowId: string): Promise<RunItem[]> => {
  const items: RunItem[] = [];
  let cursor: string | undefined;
  do {
    const query = `?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const answer = await api(runtime, store.apiKey, 'GET', `/api/v1/flows/${flowId}/runs${query}`);
    if (answer.status === 429) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      continue;
    }
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const data = (answer.body as { data: { list: RunItem[]; nextCursor?: string } }).data;
    items.push(...data.list);
    cursor = data.nextCursor;
  } while (cursor);
  return items;
};

interface GroupStats {
  group: string;
  entered: number;
  emailed: number;
  orders: number;
  revenue: Record<string, string>;
  revenuePerRecipient: Record<string, string | null>;
}
interface Experiment {
  holdoutPercent: number;
  groups: GroupStats[];
  comparisons: { group: string; against: string; currency: string; difference: string | null; ci95: unknown }[];
}

const experimentOf = async (store: TestStore, flowId: string) => {
  const answer = await api(runtime, store.apiKey, 'GET', `/api/v1/flows/${flowId}/stats`);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return (answer.body as { data: { entered: number; experiment?: Experiment } }).data;
};

/**
 * Waits (polling once a second, within the flows API's rate) until each flow counted `runs` entries: a backlog of
 * 1,000 orders takes the local runtime longer than `settled`'s minute to work off on a busy machine.
 */
const awaitEntered = async (runs: number) => {
  for (const { store, flow } of shops) {
    const deadline = Date.now() + 240_000;
    for (;;) {
      const answer = await api(runtime, store.apiKey, 'GET', `/api/v1/flows/${flow.id}/stats`);
      const entered = (answer.body as { data?: { entered?: number } }).data?.entered ?? 0;
      if (answer.status === 200 && entered >= runs) break;
      if (Date.now() > deadline) throw new Error(`${flow.id} counted ${entered} runs, not ${runs}, after 240 s`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
  await settled(runtime);
};

const firstRuns = new Map<string, { group: string; status: string; reason?: string }>();
let started = 0;

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
  for (let s = 0; s < STORES; s++) {
    const store = await newStore(`AB Shop ${s}`);
    const flow = await definedFlow(runtime, store, definition);
    const contacts = Array.from({ length: CONTACTS_PER_STORE }, (_, i) => `ab-${s}-${i}-${uid('c')}@example.com`);
    shops.push({ store, flow, contacts });
  }
  started = Date.now();
  await Promise.all(shops.map(({ store, contacts }) => payAll(store, contacts, '30.00')));
  console.info(`1,000 orders/paid accepted in ${Date.now() - started} ms`);
  await awaitEntered(CONTACTS_PER_STORE);
  for (const { store, flow } of shops) {
    const items = await eventually(
      `${CONTACTS_PER_STORE} runs of ${flow.id}`,
      async () => {
        const list = await allRuns(store, flow.id);
        return list.length >= CONTACTS_PER_STORE ? list : undefined;
      },
      30_000,
    );
    for (const item of items) {
      const run = item.run;
      if (!run || !item.email) continue;
      const exit = run.events.find((e) => e.type === 'exited');
      firstRuns.set(`${flow.id}#${item.email}`, {
        group: run.group ?? '',
        status: run.status,
        ...(exit?.reason ? { reason: exit.reason } : {}),
      });
    }
  }
  console.info(`1,000 runs entered and settled in ${Date.now() - started} ms`);
}, 420_000);

afterAll(async () => {
  await runtime?.stop();
});

describe('A/B split with a holdout over HTTP', () => {
  it('puts 1,000 runs near 45/45/10, each where the hash of (flow, contact) says', () => {
    expect(firstRuns.size).toBe(STORES * CONTACTS_PER_STORE);
    const count = (group: string) => [...firstRuns.values()].filter((r) => r.group === group).length;
    // Flow ids and addresses are new each run, so the draw is too. Holdout ~ Binomial(1000, 0.1): sd ≈ 9.5, so ±40 is
    // > 4 sd; each branch ~ Binomial(1000, 0.45): sd ≈ 15.7, ±63 is > 4 sd. A correct split fails this about once in
    // 10,000 runs; a split that ignored its percents (or sent held-out runs on) would be off by far more.
    expect(count('holdout')).toBeGreaterThan(60);
    expect(count('holdout')).toBeLessThan(140);
    expect(count('a')).toBeGreaterThan(387);
    expect(count('a')).toBeLessThan(513);
    expect(count('b')).toBeGreaterThan(387);
    expect(count('b')).toBeLessThan(513);
    console.info(`groups of 1,000 runs: holdout ${count('holdout')}, a ${count('a')}, b ${count('b')}`);
    for (const { flow, contacts } of shops) {
      const asDefined = { ...(definition as unknown as Pick<Flow, 'steps' | 'holdoutPercent'>), id: flow.id };
      for (const email of contacts) {
        expect(firstRuns.get(`${flow.id}#${email}`)?.group, email).toBe(groupOf(asDefined, email));
      }
    }
  });

  it('records held-out runs as exited with reason holdout, and mails no held-out contact', async () => {
    const mails = await mailStore(runtime);
    const subjectsTo = new Map<string, string[]>();
    for (const m of mails) {
      for (const to of m.destination.to) {
        const key = to.toLowerCase().replace(/^.*</, '').replace(/>$/, '');
        subjectsTo.set(key, [...(subjectsTo.get(key) ?? []), m.subject]);
      }
    }
    for (const { flow, contacts } of shops) {
      for (const email of contacts) {
        const run = firstRuns.get(`${flow.id}#${email}`);
        if (run?.group === 'holdout') {
          expect(run).toMatchObject({ status: 'exited', reason: 'holdout' });
          expect(subjectsTo.get(email), email).toBeUndefined();
        } else {
          expect(run?.status, email).toBe('completed');
          expect(subjectsTo.get(email), email).toEqual([run?.group === 'a' ? 'Thanks (A)' : 'Thanks (B)']);
        }
      }
    }
  });

  it('sends a returning contact down the same branch, and measures their order for their group', async () => {
    await Promise.all(shops.map(({ store, contacts }) => payAll(store, contacts.slice(0, RETURNING), '20.00')));
    await awaitEntered(CONTACTS_PER_STORE + RETURNING);
    for (const { store, flow, contacts } of shops) {
      const items = await eventually(
        `${CONTACTS_PER_STORE + RETURNING} runs of ${flow.id}`,
        async () => {
          const list = await allRuns(store, flow.id);
          return list.length >= CONTACTS_PER_STORE + RETURNING ? list : undefined;
        },
        30_000,
      );
      const groupsOf = new Map<string, Set<string>>();
      for (const item of items) {
        if (!item.email || !item.run?.group) continue;
        groupsOf.set(item.email, (groupsOf.get(item.email) ?? new Set()).add(item.run.group));
      }
      for (const email of contacts.slice(0, RETURNING)) {
        expect(
          items.filter((i) => i.email === email),
          email,
        ).toHaveLength(2);
        expect(groupsOf.get(email)?.size, email).toBe(1);
      }

      // Runs per group (first and second), and the second orders measured for the first run's group.
      const runsIn = (group: string) => items.filter((i) => i.run?.group === group).length;
      const returningIn = (group: string) =>
        contacts.slice(0, RETURNING).filter((e) => firstRuns.get(`${flow.id}#${e}`)?.group === group).length;
      const stats = await eventually(
        `the groups of ${flow.id} counted`,
        async () => {
          const s = await experimentOf(store, flow.id);
          const orders = s.experiment?.groups.reduce((sum, g) => sum + g.orders, 0);
          return s.entered === CONTACTS_PER_STORE + RETURNING && orders === RETURNING ? s : undefined;
        },
        20_000,
      );
      const groups = new Map(stats.experiment?.groups.map((g) => [g.group, g]));
      expect([...groups.keys()]).toEqual(['holdout', 'a', 'b']);
      for (const group of ['holdout', 'a', 'b']) {
        expect(groups.get(group)?.entered, group).toBe(runsIn(group));
        expect(groups.get(group)?.orders, group).toBe(returningIn(group));
        const revenue = returningIn(group) * 20;
        expect(groups.get(group)?.revenue, group).toEqual(revenue > 0 ? { EUR: revenue.toFixed(2) } : {});
      }
      expect(groups.get('holdout')?.emailed).toBe(0);
      expect(groups.get('a')?.emailed).toBe(runsIn('a'));
      expect(groups.get('b')?.emailed).toBe(runsIn('b'));
      expect(stats.experiment?.comparisons.map((c) => `${c.group}-${c.against}-${c.currency}`)).toEqual([
        'a-holdout-EUR',
        'b-holdout-EUR',
      ]);
      expect(stats.experiment?.comparisons[0]?.ci95).toMatchObject({ low: expect.any(String) });
    }
  }, 300_000);
});
