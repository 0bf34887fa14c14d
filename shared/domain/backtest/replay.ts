/**
 * The replay: a period's events, in acceptance order, applied by the live ingest use case (`applyEvent`) to an
 * in-memory world; the timers it sets (cart hour, checkout wait, flow waits) kept in a simulated queue and fired by
 * the live timer use case (`fireTimer`) and the engine (`advanceRun`) when the simulated clock reaches them; every
 * trigger evaluated by the live engine (`handleTrigger`) against the draft flow alone. The same code decides entry,
 * conditions, consent, suppression, re-entry, exits and rendering as the live flow would, and nothing leaves the
 * process but reads of the store's contacts, products, suppressions, senders and settings.
 */
import type { Cart } from '#shared/domain/carts/model.ts';
import type { Checkout } from '#shared/domain/checkouts/model.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import type { Suppressions } from '#shared/domain/email/ports.ts';
import { advanceRun } from '#shared/domain/flows/advance-run.ts';
import type { EngineDeps } from '#shared/domain/flows/engine.ts';
import { handleTrigger } from '#shared/domain/flows/enter-run.ts';
import type { Flow } from '#shared/domain/flows/flow.ts';
import type { FlowTriggers } from '#shared/domain/flows/ports.ts';
import { renderEmail } from '#shared/domain/flows/render.ts';
import { type ApplyDeps, applyEvent } from '#shared/domain/ingest/apply-event.ts';
import type { HistoryEvent } from '#shared/domain/ingest/event-history.ts';
import type { Order } from '#shared/domain/orders/model.ts';
import type { Product } from '#shared/domain/products/model.ts';
import type { Store } from '#shared/domain/stores/model.ts';
import { type FireTimerDeps, fireTimer } from '#shared/domain/timers/fire-timer.ts';
import type { Timer } from '#shared/domain/timers/model.ts';
import { dueMinute, WHEEL_MIN_WAIT_MS } from '#shared/domain/timers/wheel.ts';
import { isAppError, PermanentError } from '#shared/errors.ts';
import {
  memo,
  simActivity,
  simAttribution,
  simEntries,
  simEvaluations,
  simFlows,
  simMailer,
  simMarks,
  simRecentSends,
  simRuns,
} from './sim-engine.ts';
import {
  BULK_CONTACTS_MAX,
  contactsInMemory,
  type LiveRecords,
  SimRepository,
  simBackInStock,
  simContacts,
} from './sim-repositories.ts';
import { TimerQueue } from './timer-queue.ts';

/** What the replay reads of the live store (nothing is written). */
export interface ReplayLive extends LiveRecords {
  readonly stores: { get(storeId: string): Promise<Store | undefined> };
  readonly suppressions: Pick<Suppressions, 'suppressedAmong'>;
  readonly senders: { requireVerified(storeId: string, fromEmail: string): Promise<unknown> };
  /** The deployment's checkout recovery wait (the live timers' setting). */
  readonly checkoutRecoveryWaitMs: number;
  readonly sendRatePerSecond: number;
}

/** The replay stopped at a bound: too many events, or its time budget. */
export class ReplayBound extends Error {
  readonly bound: 'events' | 'time';
  readonly replayed: number;
  readonly reachedAt: number;
  constructor(bound: 'events' | 'time', replayed: number, reachedAt: number) {
    super(`backtest stopped at its ${bound} bound after ${replayed} events`);
    this.name = 'ReplayBound';
    this.bound = bound;
    this.replayed = replayed;
    this.reachedAt = reachedAt;
  }
}

export interface ReplayInput {
  readonly storeId: string;
  readonly flow: Flow;
  /** The period, epoch ms, `to` exclusive: events of it are replayed, timers due before `to` fire. */
  readonly from: number;
  readonly to: number;
  readonly events: AsyncIterable<readonly HistoryEvent[]>;
  readonly maxEvents: number;
  /** Wall-clock time (ms) after which the replay stops. */
  readonly deadline: number;
  readonly wallClock: () => number;
  /** Told every 256 events of how far the replay got (the replay then lets pending I/O run). */
  readonly progress?: (progress: { events: number; reachedAt: number }) => void;
}

/** Everything the replay saw, for the answer to summarise. */
export type ReplayResult = Awaited<ReturnType<typeof replay>>;

export const replay = async (live: ReplayLive, input: ReplayInput) => {
  const { storeId, flow } = input;
  let now = input.from;
  const clock = { now: () => now };
  const queue = new TimerQueue();
  // The history's first days are read while the contacts are: a store of up to BULK_CONTACTS_MAX contacts is read at
  // once, a larger one address by address.
  const pages = input.events[Symbol.asyncIterator]();
  const firstPage = pages.next();
  firstPage.catch(() => undefined);
  const bulk = live.allContacts ? await live.allContacts(storeId, BULK_CONTACTS_MAX) : undefined;
  const people = bulk ? contactsInMemory(bulk) : live;
  const customers = new SimRepository<Customer>(
    (c) => c.originId,
    (s, k) => people.customers.get(s, k),
  );
  const products = new SimRepository<Product>(
    (p) => p.id,
    (s, k) => live.products.get(s, k),
  );
  const carts = new SimRepository<Cart>((c) => c.token);
  const checkouts = new SimRepository<Checkout>((c) => c.token);
  const orders = new SimRepository<Order>((o) => o.id);
  const contacts = simContacts(customers, people.contacts);
  const runs = simRuns();
  const evaluations = simEvaluations(flow.id);
  const mail = simMailer(clock);
  const attribution = simAttribution(clock);
  const store = memo((id: string) => live.stores.get(id));
  const suppressed = batchedSuppressions(storeId, live.suppressions);
  const verified = memo(async (from: string) => {
    try {
      await live.senders.requireVerified(storeId, from);
      return undefined;
    } catch (error) {
      if (!isAppError(error)) throw error;
      return error;
    }
  });
  const timers = {
    // Flow waits of two minutes or more go through the live timer wheel: released at their due minute.
    set: async (timer: Timer) => {
      const onWheel = timer.payload.kind === 'flow' && timer.at - now >= WHEEL_MIN_WAIT_MS;
      queue.set(onWheel ? { ...timer, at: dueMinute(timer.at) } : timer);
    },
  };

  const engine: EngineDeps = {
    flows: simFlows(flow),
    runs: runs.repository,
    evaluations: evaluations.repository,
    entries: simEntries(),
    activity: simActivity(),
    marks: simMarks(),
    customers,
    contacts,
    carts,
    checkouts,
    stores: { get: store },
    suppressions: {
      suppressedAmong: async (_s, emails) => {
        const hits = await Promise.all(emails.map(async (e) => ((await suppressed.get(e)) ? [e] : [])));
        return new Set(hits.flat());
      },
    },
    mailer: mail.mailer,
    sent: { record: async () => undefined },
    attribution: attribution.store,
    unsubscribe: { urlFor: async (claim) => `https://unsubscribe.invalid/backtest/${claim.transmissionId}` },
    senders: {
      requireVerified: async (_s, from) => {
        const refused = await verified(from);
        if (refused) throw refused;
      },
    },
    // Only the subject is reported: the body (most of the rendering's cost) is not rendered (docs/backtest.md).
    render: (step, context) => renderEmail({ subject: step.subject }, context),
    pacer: { reserve: async () => ({ at: now }) },
    sendRatePerSecond: live.sendRatePerSecond,
    dailySends: { take: async () => true },
    dailySendCap: async () => 0,
    standing: async () => undefined,
    // The store's frequency cap and quiet hours apply as live (its settings come with the store record).
    recentSends: simRecentSends(),
    timers,
    clock,
  };
  const triggers: FlowTriggers = {
    fire: async (trigger) => {
      await handleTrigger(engine, trigger);
    },
  };
  let contactIds = 0;
  const apply: ApplyDeps = {
    customers,
    attribution: attribution.store,
    stores: { get: store },
    products,
    orders,
    carts,
    checkouts,
    backInStock: simBackInStock(),
    timers,
    triggers,
    // A replay sends no email: a public sign-up's confirmation is not asked (its contact stays pending).
    confirmations: { request: async () => 'not_asked_in_replay' },
    webhooks: { emit: async () => undefined },
    clock,
    newContactId: () => `ct_backtest_${++contactIds}`,
    checkoutRecoveryWaitMs: live.checkoutRecoveryWaitMs,
  };
  const fire: FireTimerDeps = {
    carts,
    checkouts,
    customers,
    triggers,
    flowQueue: {
      trigger: async () => undefined,
      resume: async (s, runId, step) => {
        await advanceRun(engine, s, runId, { resumeStepId: step });
      },
    },
    buckets: { due: async () => ({ items: [] }), remove: async () => undefined },
    clock,
  };

  let replayed = 0;
  let fired = 0;
  let failedEvents = 0;
  const overBudget = () => input.wallClock() > input.deadline;
  /** Fires every timer due up to `until`, each at its own time. */
  const fireUntil = async (until: number) => {
    for (let timer = queue.popDue(until); timer; timer = queue.popDue(until)) {
      now = Math.max(now, timer.at);
      fired++;
      if (fired % 256 === 0 && overBudget()) throw new ReplayBound('time', replayed, now);
      const { payload } = timer;
      if (payload.kind === 'cart' || payload.kind === 'checkout' || payload.kind === 'flow') {
        await fireTimer(fire, payload);
      }
    }
  };

  /** The live reads a page of events will need, started together (they overlap the replay of the page before). */
  const prefetch = (page: readonly HistoryEvent[]) => {
    for (const { data } of page) {
      if (typeof data.email === 'string' && data.email !== '') {
        contacts.prefetch(storeId, data.email);
        suppressed.prefetch(data.email.toLowerCase());
      }
      if (typeof data.customer_id === 'string' && data.customer_id !== '')
        customers.prefetch(storeId, data.customer_id);
    }
    suppressed.flush();
  };

  for (let next = await firstPage; !next.done; next = await pages.next()) {
    const page = next.value;
    prefetch(page);
    for (const event of page) {
      if (event.acceptedAt < input.from || event.acceptedAt >= input.to) continue;
      if (++replayed > input.maxEvents) throw new ReplayBound('events', replayed - 1, now);
      if (replayed % 256 === 0) {
        if (overBudget()) throw new ReplayBound('time', replayed, now);
        if (input.progress) {
          input.progress({ events: replayed, reachedAt: now });
          // The replay's awaits are mostly in memory (microtasks): let I/O through, so the progress write goes out now
          // (and, in the local runtime's one process, the routes answer meanwhile).
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
      }
      await fireUntil(event.acceptedAt - 1);
      now = Math.max(now, event.acceptedAt);
      try {
        await applyEvent(apply, { v: 1, ...event });
      } catch (error) {
        // An event the live worker could never apply (over an entity's budget): it failed there too.
        if (!(error instanceof PermanentError)) throw error;
        failedEvents++;
      }
    }
  }
  await fireUntil(input.to - 1);
  now = input.to;

  return {
    runs: [...runs.runs.values()],
    evaluations: [...evaluations.evaluations.values()],
    emails: mail.emails,
    recovered: attribution.recovered,
    replayed,
    fired,
    failedEvents,
  };
};

/** Addresses asked about together (`Suppressions.suppressedAmong`). */
const SUPPRESSION_BATCH = 100;

/**
 * Today's suppressions, each address asked once: the addresses a page of events names are asked in batches of 100
 * ahead of the replay (`prefetch`, then `flush`); an address not asked ahead is asked alone when needed.
 */
const batchedSuppressions = (storeId: string, suppressions: Pick<Suppressions, 'suppressedAmong'>) => {
  const known = new Map<string, Promise<boolean>>();
  let waiting: string[] = [];
  const ask = (emails: string[]) => {
    const answer = suppressions.suppressedAmong(storeId, emails);
    answer.catch(() => undefined);
    for (const email of emails)
      known.set(
        email,
        answer.then((hits) => hits.has(email)),
      );
  };
  return {
    prefetch(email: string) {
      if (known.has(email)) return;
      known.set(email, Promise.resolve(false));
      waiting.push(email);
    },
    flush() {
      for (let i = 0; i < waiting.length; i += SUPPRESSION_BATCH) ask(waiting.slice(i, i + SUPPRESSION_BATCH));
      waiting = [];
    },
    get(email: string): Promise<boolean> {
      if (!known.has(email)) ask([email]);
      return known.get(email) as Promise<boolean>;
    },
  };
};
