import type { EventInterface } from '#shared/domain/events/endpoints.ts';
import type { StoreType } from '#shared/domain/stores/model.ts';

/** An event as accepted at the edge, before the worker applies it. */
export interface AcceptedEvent {
  readonly storeId: string;
  readonly sourceId: string;
  readonly endpoint: string;
  readonly interface: EventInterface;
  /** Epoch milliseconds. */
  readonly acceptedAt: number;
  /** The store's type when the event was accepted (decides the `customer/marketing` webhook format). */
  readonly storeType?: StoreType;
  /**
   * `publishable` when the event came with the store's publishable key (`pk_…`, public in its storefront pages), whose
   * events may create contacts but never change one (docs/events.md); absent for the store key, and in every message
   * queued before the key kind was carried (only the store key's could hold a customer then).
   */
  readonly key?: 'publishable';
}

/** The message on the ingest queue. `v` versions the message shape so old messages stay readable after a deploy. */
export interface IngestMessage extends AcceptedEvent {
  readonly v: 1;
  readonly data: Record<string, unknown>;
}

/** One applied event as the event history keeps it (docs/backtest.md): the ingest message, as the worker applied it. */
export type HistoryEvent = Omit<IngestMessage, 'v'>;

/** Why an accepted event could not be applied, as its store is shown it. */
export interface EventFailure {
  readonly reason: string;
  /** Epoch milliseconds. */
  readonly failedAt: number;
}
