/** In-memory doubles of the flow engine's ports, for the domain tests (no AWS, no local runtime). */

import { type RecentTimes, simRecentSends } from '#shared/domain/backtest/sim-engine.ts';
import type { Cart } from '#shared/domain/carts/model.ts';
import type { Checkout } from '#shared/domain/checkouts/model.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import type { OutboundEmail, SentMessage } from '#shared/domain/email/model.ts';
import type { SmartSendingSettings } from '#shared/domain/email/smart-sending.ts';
import type { EngineDeps } from '#shared/domain/flows/engine.ts';
import type { Flow, FlowStep } from '#shared/domain/flows/flow.ts';
import type { ContactActivityEntry, RecoveryMark, TriggerLog } from '#shared/domain/flows/ports.ts';
import type { FlowEvaluation, FlowRun } from '#shared/domain/flows/run.ts';
import type { FlowKind, FlowTrigger } from '#shared/domain/flows/trigger.ts';
import { RevisionConflict } from '#shared/domain/repository.ts';
import type { Timer } from '#shared/domain/timers/model.ts';
import { validationError } from '#shared/errors.ts';
import { memoryAttribution } from './attribution.ts';

export const STORE = 'st_test';

export const emailStep = (id: string, extra: Partial<Extract<FlowStep, { type: 'email' }>> = {}): FlowStep => ({
  type: 'email',
  id,
  from: { email: 'shop@shop.example', name: 'Shop' },
  subject: 'Hello {{ contact.first_name }}',
  html: '<p>{% for line in cart.line_items %}{{ line.title }};{% endfor %}</p>',
  text: 'Hi',
  ...extra,
});

export const flowOf = (id: string, kind: FlowKind, extra: Partial<Flow> = {}): Flow => ({
  storeId: STORE,
  id,
  name: `Flow ${id}`,
  trigger: kind,
  enabled: true,
  reentry: { type: 'once_per_subject' },
  consent: 'transactional',
  steps: [emailStep('e1')],
  createdAt: 1,
  updatedAt: 1,
  revision: 1,
  ...extra,
});

let sequence = 0;
export const triggerOf = (kind: FlowKind, extra: Partial<FlowTrigger> = {}): FlowTrigger => ({
  id: `event#src-${++sequence}#${kind}`,
  storeId: STORE,
  kind,
  subject: { type: 'cart', id: `cart-${sequence}` },
  contact: { email: 'Ada@Example.com' },
  cause: { endpoint: 'test' },
  context: {
    cart: {
      token: `cart-${sequence}`,
      checkoutUrl: 'https://shop.example/cart',
      lineItems: [{ product_id: 'p-1', title: 'Lamp', quantity: 1, price: '10.00' }],
    },
  },
  at: 1_000_000,
  ...extra,
});

export const customerOf = (originId: string, extra: Partial<Customer> = {}): Customer => ({
  storeId: STORE,
  id: `ct_${originId}`,
  originId,
  email: 'ada@example.com',
  firstName: 'Ada',
  platformTags: [],
  categoryTags: [],
  attributes: {},
  createdAt: 1,
  updatedAt: 1,
  revision: 1,
  ...extra,
});

export interface Fakes {
  readonly deps: EngineDeps & { triggers: TriggerLog };
  readonly attribution: ReturnType<typeof memoryAttribution>;
  readonly flows: Map<string, Flow>;
  readonly runs: Map<string, FlowRun>;
  readonly evaluations: { evaluation: FlowEvaluation; partition: string }[];
  readonly customers: Map<string, Customer>;
  readonly carts: Map<string, Cart>;
  readonly checkouts: Map<string, Checkout>;
  readonly suppressed: Set<string>;
  readonly sent: OutboundEmail[];
  readonly recorded: SentMessage[];
  readonly timers: Timer[];
  readonly runWrites: string[];
  readonly triggers: Map<string, FlowTrigger>;
  readonly activity: ContactActivityEntry[];
  readonly marks: Map<string, RecoveryMark>;
  /** Re-entry guards by `flowId#key` (`claimedAt` absent: a guard written before claims carried their time). */
  readonly entries: Map<string, { runId: string; at: number; claimedAt?: number }>;
  /** Makes the next Mailer calls throw this (one call each). */
  readonly failures: Error[];
  /** Errors the sent-message record throws, one per call, before it records. */
  readonly recordFailures: Error[];
  /** Every send slot the pacer gave, with its owner. */
  readonly slots: { count: number; storeId: string; sendClass: string }[];
  /** Marketing sends counted per `storeId#day` against the daily cap (set `deps.dailySendCap` to turn it on). */
  readonly daily: Map<string, number>;
  /** The store's smart-sending settings (`stores.get` answers them); none at first. */
  smartSending: SmartSendingSettings | undefined;
  /** Recent marketing send times per address (the frequency cap). */
  readonly recentSends: RecentTimes;
  /** Domains the store has verified for sending (`shop.example`, the fakes' sender, at first). */
  readonly verifiedDomains: Set<string>;
  readonly clock: { now: number };
}

const copy = <T>(value: T): T => structuredClone(value);

export const fakes = (): Fakes => {
  const flows = new Map<string, Flow>();
  const runs = new Map<string, FlowRun>();
  const evaluations: Fakes['evaluations'] = [];
  const entries = new Map<string, { runId: string; at: number; claimedAt?: number }>();
  const activity: ContactActivityEntry[] = [];
  const marks = new Map<string, RecoveryMark>();
  const customers = new Map<string, Customer>();
  const carts = new Map<string, Cart>();
  const checkouts = new Map<string, Checkout>();
  const suppressed = new Set<string>();
  const sent: OutboundEmail[] = [];
  const attribution = memoryAttribution();
  const recorded: SentMessage[] = [];
  const timers: Timer[] = [];
  /** Every write of a run, in order (`create active sending`, `save completed`): what a run costs. */
  const runWrites: string[] = [];
  const triggers = new Map<string, FlowTrigger>();
  const failures: Error[] = [];
  const recordFailures: Error[] = [];
  const slots: { count: number; storeId: string; sendClass: string }[] = [];
  const daily = new Map<string, number>();
  const recentSends = simRecentSends();
  const verifiedDomains = new Set<string>(['shop.example']);
  const clock = { now: 2_000_000 };
  // Every port call yields once, so concurrent callers interleave as they would against a real table.
  const tick = () => new Promise((resolve) => setImmediate(resolve));

  const deps: Fakes['deps'] = {
    flows: {
      async get(_storeId, flowId) {
        await tick();
        return flows.has(flowId) ? copy(flows.get(flowId)) : undefined;
      },
      async list() {
        await tick();
        return [...flows.values()].map(copy);
      },
    },
    triggers: { get: async (_storeId, id) => triggers.get(id) },
    runs: {
      async get(_storeId, runId) {
        await tick();
        const run = runs.get(runId);
        return run ? copy(run) : undefined;
      },
      async create(run, options) {
        await tick();
        runWrites.push(`create ${run.status}${run.sending ? ' sending' : ''}`);
        // Guarded: a plain put, as the table's adapter writes it (a second writer would overwrite the run).
        if (options?.guarded) {
          runs.set(run.id, copy(run));
          return true;
        }
        if (runs.has(run.id)) return false;
        runs.set(run.id, copy(run));
        return true;
      },
      async save(run, expectedRevision, options) {
        await tick();
        runWrites.push(`save ${run.status}${run.sending ? ' sending' : ''}${options?.claimed ? ' claimed' : ''}`);
        // Claimed: a plain put, as the table's adapter writes it.
        if (!options?.claimed && (runs.get(run.id)?.revision ?? 0) !== expectedRevision) {
          throw new RevisionConflict(`run ${run.id}`);
        }
        runs.set(run.id, copy(run));
      },
      getMany: async (_storeId, ids) => ids.map((id) => runs.get(id)).filter((run) => run !== undefined),
    },
    evaluations: {
      async record(evaluation, partition) {
        const at = evaluations.findIndex(
          (e) => e.partition === partition && e.evaluation.triggerId === evaluation.triggerId,
        );
        if (at >= 0) evaluations.splice(at, 1);
        evaluations.push({ evaluation: copy(evaluation), partition });
      },
    },
    entries: {
      async claim(_storeId, flowId, key, entry) {
        await tick();
        const id = `${flowId}#${key}`;
        const holder = entries.get(id);
        // Held by this run: taken back only when its claim is stale (as the table's guard).
        const own = holder?.runId === entry.runId && (holder.claimedAt ?? 0) < entry.staleBefore;
        const free = !holder || own || (entry.expiredBefore !== undefined && holder.at < entry.expiredBefore);
        if (!free) return { claimed: false, holder: { runId: holder.runId, at: holder.at } };
        entries.set(id, { runId: entry.runId, at: entry.at, claimedAt: entry.claimedAt });
        return holder?.runId === entry.runId ? { claimed: true, reclaimed: true } : { claimed: true };
      },
    },
    activity: {
      async record(entry) {
        if (!activity.some((a) => a.triggerId === entry.triggerId && a.email === entry.email)) activity.push(entry);
      },
      since: async (_storeId, email, from) => activity.filter((a) => a.email === email && a.at >= from),
    },
    marks: {
      async claim(_storeId, email, productId, mark) {
        await tick();
        const id = `${email}#${productId}`;
        const holder = marks.get(id);
        if (holder && holder.kind !== mark.kind && holder.runId !== mark.runId && holder.at >= mark.notBefore) {
          return { claimed: false, holder };
        }
        marks.set(id, { kind: mark.kind, runId: mark.runId, at: mark.at });
        return { claimed: true };
      },
      async release(_storeId, email, productId, runId) {
        const id = `${email}#${productId}`;
        if (marks.get(id)?.runId === runId) marks.delete(id);
      },
    },
    customers: { get: async (_storeId, originId) => customers.get(originId) },
    contacts: {
      find: async (_storeId, email) =>
        [...customers.values()].filter((c) => c.email?.toLowerCase() === email.toLowerCase()),
    },
    carts: { get: async (_storeId, token) => carts.get(token), save: async () => undefined },
    checkouts: { get: async (_storeId, token) => checkouts.get(token), save: async () => undefined },
    stores: {
      get: async (storeId) => ({
        storeId,
        type: 'direct',
        name: 'Test Shop',
        keyHash: 'x',
        keyCipher: 'x',
        createdAt: 1,
        ...(result.smartSending ? { smartSending: result.smartSending } : {}),
      }),
    },
    recentSends,
    suppressions: {
      suppressedAmong: async (_storeId, emails) => new Set(emails.filter((e) => suppressed.has(e.toLowerCase()))),
    },
    mailer: {
      async send(message) {
        await tick();
        const failure = failures.shift();
        if (failure) throw failure;
        sent.push(message);
        return { messageId: `msg-${sent.length}` };
      },
    },
    attribution: attribution.store,
    sent: {
      async record(messages) {
        const failure = recordFailures.shift();
        if (failure) throw failure;
        recorded.push(...messages);
      },
    },
    timers: {
      async set(timer) {
        timers.push(timer);
      },
    },
    unsubscribe: {
      urlFor: async (claim) => `https://send.example/unsubscribe/${claim.transmissionId}.${claim.email}`,
    },
    senders: {
      async requireVerified(_storeId, fromEmail) {
        const domain = fromEmail.slice(fromEmail.lastIndexOf('@') + 1);
        if (!verifiedDomains.has(domain)) throw validationError(`from.email domain ${domain} is not a sending domain`);
      },
    },
    pacer: {
      reserve: async (count, _perSecond, owner) => {
        slots.push({ count, ...owner });
        return { at: clock.now };
      },
    },
    sendRatePerSecond: 14,
    dailySends: {
      take: async (storeId, day, count, cap) => {
        const key = `${storeId}#${day}`;
        const used = daily.get(key) ?? 0;
        if (used + count > cap) return false;
        daily.set(key, used + count);
        return true;
      },
    },
    dailySendCap: async () => 0,
    standing: async () => undefined,
    clock: { now: () => clock.now },
  };

  const result: Fakes = {
    deps,
    attribution,
    flows,
    runs,
    evaluations,
    customers,
    carts,
    checkouts,
    suppressed,
    sent,
    recorded,
    timers,
    runWrites,
    triggers,
    activity,
    marks,
    entries,
    failures,
    recordFailures,
    slots,
    daily,
    verifiedDomains,
    clock,
    smartSending: undefined,
    recentSends: recentSends.times,
  };
  return result;
};
