/**
 * Ports of the flows area: definitions, the trigger hand-off, the flow engine's runs, explain records, re-entry guards
 * and the flows queue. Nothing here imports an AWS SDK.
 */
import type { Flow } from './flow.ts';
import type { FlowEvaluation, FlowRun } from './run.ts';
import type { FlowKind, FlowTrigger } from './trigger.ts';

/** Recorded triggers (one item per trigger id, written by the `FlowTriggers` hand-off). */
export interface TriggerLog {
  get(storeId: string, triggerId: string): Promise<FlowTrigger | undefined>;
}

export interface FlowRunRepository {
  get(storeId: string, runId: string): Promise<FlowRun | undefined>;
  /**
   * Creates the run; false when a run with its id exists already (the same trigger never starts two runs of a flow).
   * `guarded`: the caller took the run's re-entry guard afresh (`FlowEntries.claim`, not `reclaimed`), so no other
   * delivery of the trigger writes this run: the adapter may write it without a condition, gathered with the batch's
   * other puts, and answers true.
   */
  create(run: FlowRun, options?: { readonly guarded?: boolean }): Promise<boolean>;
  /**
   * Writes if the stored revision is still `expectedRevision`; else `RevisionConflict`. `claimed`: the caller holds
   * the run's send claim, fresh (`email-step.ts`), so no other worker writes the run: the adapter may write it without
   * a condition, gathered with the batch's other puts.
   */
  save(run: FlowRun, expectedRevision: number, options?: { readonly claimed?: boolean }): Promise<void>;
  /** Several runs by id (the explain views join evaluations to their runs); missing ones are left out. */
  getMany(storeId: string, runIds: readonly string[]): Promise<FlowRun[]>;
}

export interface Page<T> {
  readonly items: T[];
  /** Opaque; absent on the last page. */
  readonly nextCursor?: string;
}

export interface FlowEvaluationRepository {
  /** Records (or replaces: the latest evaluation of a trigger against a flow is the one that counts) an evaluation. */
  record(evaluation: FlowEvaluation, partition: string): Promise<void>;
  /** A flow's evaluations, newest first. */
  listForFlow(storeId: string, flowId: string, page: { limit: number; cursor?: string }): Promise<Page<FlowEvaluation>>;
  /** Every evaluation of the address across the store's flows, newest first. */
  listForContact(
    storeId: string,
    email: string,
    page: { limit: number; cursor?: string },
  ): Promise<Page<FlowEvaluation>>;
}

export type EntryClaim =
  | {
      readonly claimed: true;
      /**
       * The key was held already for this same run: a claim older than `staleBefore` (its delivery died between the
       * claim and the run's write) or one written before claims carried their time. The run may exist: create it
       * with the conditional write.
       */
      readonly reclaimed?: boolean;
    }
  | { readonly claimed: false; readonly holder: EntryHolder };
export interface EntryHolder {
  readonly runId: string;
  /** Epoch ms of the holder's entry. */
  readonly at: number;
}

/** Re-entry guards: one item per flow and entry key; a conditional write decides who enters. */
export interface FlowEntries {
  /**
   * Claims the key for `runId` when free, held by `runId` with a claim made before `staleBefore` (its delivery died:
   * `reclaimed`), or held by an entry older than `expiredBefore` (cool-down). One conditional write. Held by `runId`
   * with a fresh claim: not claimed, the holder is this run (another delivery of the trigger is writing it).
   */
  claim(
    storeId: string,
    flowId: string,
    entryKey: string,
    entry: { runId: string; at: number; claimedAt: number; staleBefore: number; expiredBefore?: number },
  ): Promise<EntryClaim>;
}

/** What happened to a contact, as triggers told the engine: read by `activity.*` and `contact.order_count`. */
export interface ContactActivityEntry {
  readonly storeId: string;
  /** Lower-cased. */
  readonly email: string;
  readonly triggerId: string;
  readonly kind: FlowKind;
  readonly subject: FlowTrigger['subject'];
  /** The order status for order triggers. */
  readonly status?: string;
  readonly at: number;
}

export interface ContactActivity {
  /** Idempotent by trigger id. */
  record(entry: ContactActivityEntry): Promise<void>;
  /** The address's entries at or after `from` (epoch ms), oldest first. */
  since(storeId: string, email: string, from: number): Promise<ContactActivityEntry[]>;
}

export type MarkClaim = { readonly claimed: true } | { readonly claimed: false; readonly holder: RecoveryMark };
export interface RecoveryMark {
  readonly kind: FlowKind;
  readonly runId: string;
  readonly at: number;
}

/**
 * Product recovery marks: who last mailed an address about a product (abandoned cart or browse recovery), so the two
 * never both mail the same person about the same product within the cool-down.
 */
export interface RecoveryMarks {
  /** Claims (address, product) for the run unless another recovery kind mailed it at or after `notBefore`. */
  claim(
    storeId: string,
    email: string,
    productId: string,
    mark: RecoveryMark & { notBefore: number },
  ): Promise<MarkClaim>;
  /** Gives the mark back (the email was not sent after all); only a mark still held by `runId` is removed. */
  release(storeId: string, email: string, productId: string, runId: string): Promise<void>;
}

/** The flows queue: triggers to evaluate and runs to resume. */
export interface FlowQueue {
  /**
   * Queues a recorded trigger for evaluation, after `delaySeconds` (0–900) when given; `reservedAt` is the time its
   * runs' starts are reserved for in the store's budget (a trigger put off over the budget: it then needs no other);
   * `after`: the flow id after which its evaluation goes on (the next step of a trigger started in steps).
   */
  trigger(
    storeId: string,
    triggerId: string,
    delaySeconds?: number,
    reservedAt?: number,
    after?: string,
  ): Promise<void>;
  /** Continues a run after its wait step `stepId` ended. */
  resume(storeId: string, runId: string, stepId: string): Promise<void>;
}

/** One-click unsubscribe URLs (`unsubscribeLinks()`). */
export interface UnsubscribeUrls {
  urlFor(claim: { storeId: string; email: string; transmissionId: string }): Promise<string>;
}

/** Where the worker hands the flows it decided to start (the flow engine consumes them). */
export interface FlowTriggers {
  /** Idempotent by `trigger.id`: the same event never starts the same trigger twice. */
  fire(trigger: FlowTrigger): Promise<void>;
}

/** A store's flow definitions (at most `LIMITS.flowsPerStore` each). */
export interface FlowRepository {
  get(storeId: string, flowId: string): Promise<Flow | undefined>;
  /** Every flow of the store, enabled or not, in id order. */
  list(storeId: string): Promise<Flow[]>;
  /** The store's enabled flows of one trigger kind (what a trigger of that kind is evaluated against). */
  listEnabled(storeId: string, kind: FlowKind): Promise<Flow[]>;
  /** Writes the flow if the stored revision is still `expectedRevision` (0: must not exist yet); else `RevisionConflict`. */
  save(flow: Flow, expectedRevision: number): Promise<void>;
  /** Removes the flow; `false` when the store had no flow with that id. */
  delete(storeId: string, flowId: string): Promise<boolean>;
}

/**
 * How many flow runs a store may start per second: one event can start a run in every flow of its kind, so
 * without a bound a store with many flows turns its event rate into a write rate many times larger, on the table and
 * the flows queue every store shares.
 */
export interface RunAdmission {
  /**
   * Runs a trigger starts at a time (the budget's second): a trigger entering more flows starts them in steps of this
   * many, a second apart, rather than all at once (absent: all at once).
   */
  readonly slice?: number;
  /**
   * Reserves `runs` run starts of the store's budget; answers when they may start (epoch ms): at once when that is not
   * after now, else at the reserved time (the trigger waits until then and does not ask again).
   */
  admit(storeId: string, runs: number): Promise<number>;
}
