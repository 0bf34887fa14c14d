/** Ports of the ingest area: what its use cases need from the outside world. Nothing here imports an AWS SDK. */
import type { AcceptedEvent, IngestMessage } from './model.ts';

/** De-duplication record per store + `source_id` (spec: a `source_id` already seen answers 304). */
export interface EventLog {
  /**
   * Records the event once, with the hash of its data; `false` when this store already has the `source_id`. One
   * conditional write.
   */
  record(event: AcceptedEvent, dataHash: string): Promise<boolean>;
  /** Removes the record again (the event could not be queued, so a retry must be accepted). */
  forget(storeId: string, sourceId: string): Promise<void>;
  /** The store's record of `source_id` (when, and the hash of the data it came with); one consistent read. */
  recorded(storeId: string, sourceId: string): Promise<{ acceptedAt: number; dataHash?: string } | undefined>;
}

export interface IngestQueue {
  /** Queues the event in its entity's ordered group. */
  send(message: IngestMessage, groupKey: string): Promise<void>;
}
