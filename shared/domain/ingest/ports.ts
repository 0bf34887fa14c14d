/** Ports of the ingest area: what its use cases need from the outside world. Nothing here imports an AWS SDK. */
import type { AcceptedEvent, EventFailure, IngestMessage } from './model.ts';

/** De-duplication record per store + `source_id` (spec: a `source_id` already seen answers 304). */
export interface EventLog {
  /**
   * Records the event once, with the hash of its data; `false` when this store already has the `source_id`. One
   * conditional write.
   */
  record(event: AcceptedEvent, dataHash: string): Promise<boolean>;
  /** Removes the record again (the event could not be queued, so a retry must be accepted). */
  forget(storeId: string, sourceId: string): Promise<void>;
  /**
   * Marks the store's event as failed for good (it can never be applied: an entity over its budget, an item DynamoDB
   * refuses, a value the worker cannot use), with the reason the store is shown. One write; the record keeps answering 304 to a repeat.
   */
  markFailed(storeId: string, sourceId: string, failure: EventFailure): Promise<void>;
  /** The store's record of `source_id` (when, and the hash of the data it came with); one consistent read. */
  recorded(
    storeId: string,
    sourceId: string,
  ): Promise<{ acceptedAt: number; dataHash?: string; requeued?: boolean; failure?: EventFailure } | undefined>;
  /** Notes that a retry re-sent the event and the queue took it: it is known queued, and no later retry sends it. */
  markRequeued(storeId: string, sourceId: string): Promise<void>;
  /** What the store may see of its event: when and through which endpoint it was accepted, and its failure if any. */
  status(storeId: string, sourceId: string): Promise<EventRecord | undefined>;
}

/** The store's view of one accepted event. */
export interface EventRecord {
  readonly endpoint: string;
  readonly interface: string;
  /** Epoch milliseconds. */
  readonly acceptedAt: number;
  readonly failure?: EventFailure;
}

export interface IngestQueue {
  /** Queues the event in its entity's ordered group. */
  send(message: IngestMessage, groupKey: string): Promise<void>;
}
