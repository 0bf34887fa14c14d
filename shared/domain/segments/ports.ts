/**
 * Ports of the segments area: definitions, their live state, members, the contact facts they read, the store's
 * contacts in pages, and the segments queue. Nothing here imports an AWS SDK.
 */
import type { Customer } from '#shared/domain/customers/model.ts';
import type { ContactStats, OrderFact, Segment, SegmentMember, SegmentState } from './model.ts';

export interface Page<T> {
  readonly items: T[];
  /** Opaque; absent on the last page. */
  readonly nextCursor?: string;
}

/** A store's segment definitions (at most `LIMITS.segmentsPerStore`). */
export interface SegmentRepository {
  get(storeId: string, segmentId: string): Promise<Segment | undefined>;
  /** Every segment of the store, in id order (one partition). */
  list(storeId: string): Promise<Segment[]>;
  /** Writes if the stored revision is still `expectedRevision` (0: must not exist yet); else `RevisionConflict`. */
  save(segment: Segment, expectedRevision: number): Promise<void>;
  /** Removes the definition and its state; `false` when the store had no such segment. */
  delete(storeId: string, segmentId: string): Promise<boolean>;
}

/** The live count and build progress of each segment (`SegmentState`), written apart from the definition. */
export interface SegmentStates {
  get(storeId: string, segmentId: string): Promise<SegmentState | undefined>;
  /** Several at once (the list). */
  getMany(storeId: string, segmentIds: readonly string[]): Promise<Map<string, SegmentState>>;
  /** A build of `revision` begins (progress from 0, status `building`); the member count is kept. */
  startBuild(storeId: string, segmentId: string, revision: number, at: number): Promise<void>;
  /** Adds `scanned` contacts to the build of `revision`; nothing when a newer build replaced it. */
  progress(storeId: string, segmentId: string, revision: number, scanned: number): Promise<void>;
  /** The build of `revision` is done (`ready`); nothing when a newer build replaced it. */
  finishBuild(storeId: string, segmentId: string, revision: number, at: number): Promise<void>;
  /**
   * A new revision with the same conditions (a rename) keeps the finished build of `from`: it holds for `to` too.
   * Nothing when the build is of another revision by then.
   */
  carryBuild(storeId: string, segmentId: string, from: number, to: number): Promise<void>;
}

/**
 * Members: one item per segment and contact. `enter` and `exit` are conditional, and each one that changes something
 * moves the segment's live count by one (`ADD`), so a repeated evaluation counts nothing twice.
 */
export interface SegmentMembers {
  /** Which of `segmentIds` the contact is a member of (one batch read). */
  memberOf(storeId: string, segmentIds: readonly string[], customerId: string): Promise<Set<string>>;
  /** Which of `customerIds` are members of the segment (one batch read; the build pass). */
  membersAmong(storeId: string, segmentId: string, customerIds: readonly string[]): Promise<Set<string>>;
  /** Adds the member; false when it was one already. */
  enter(storeId: string, segmentId: string, member: SegmentMember): Promise<boolean>;
  /** Removes the member; false when it was none. */
  exit(storeId: string, segmentId: string, customerId: string): Promise<boolean>;
  /** Members in customer id order, `limit` at a time; the cursor of one segment is refused by another. */
  page(storeId: string, segmentId: string, page: { limit: number; cursor?: string }): Promise<Page<SegmentMember>>;
  /** Deletes up to one page of a deleted segment's members; answers how many it deleted (0: none left). */
  purgePage(storeId: string, segmentId: string): Promise<number>;
}

export interface ContactStatsRepository {
  get(storeId: string, customerId: string): Promise<ContactStats | undefined>;
  getMany(storeId: string, customerIds: readonly string[]): Promise<Map<string, ContactStats>>;
  /** Sets one order's fact (idempotent: the same order again replaces it); `firstSeen` keeps its earliest time. */
  recordOrder(
    storeId: string,
    customerId: string,
    orderId: string,
    fact: (firstSeen?: number) => OrderFact,
  ): Promise<void>;
  /** Notes a first open or a click at `at`, keeping the latest. */
  recordEngagement(storeId: string, customerId: string, kind: 'open' | 'click', at: number): Promise<void>;
}

/** The store's contacts, a page at a time, by `Query` on the store's contacts partition (never a Scan). */
export interface StoreContacts {
  page(storeId: string, page: { limit: number; cursor?: string }): Promise<Page<Customer>>;
}

/** The segments queue: builds (and their continuations), timed re-evaluations, purges. */
export interface SegmentQueue {
  send(message: SegmentMessage): Promise<void>;
}

export type SegmentMessage =
  | {
      readonly v: 1;
      readonly type: 'build';
      readonly storeId: string;
      readonly segmentId: string;
      readonly revision: number;
      readonly cursor?: string;
    }
  /** A contact's time-window condition may have flipped at `at` (epoch ms): evaluate its segments as of then. */
  | {
      readonly v: 1;
      readonly type: 'contact';
      readonly storeId: string;
      readonly customerId: string;
      readonly at: number;
    }
  | { readonly v: 1; readonly type: 'purge'; readonly storeId: string; readonly segmentId: string };
