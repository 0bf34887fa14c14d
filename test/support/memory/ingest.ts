/** In-memory doubles of the ingest area's ports (`shared/domain/ingest/ports.ts`), for unit tests. */
import type { AcceptedEvent, EventFailure, IngestMessage } from '#shared/domain/ingest/model.ts';
import type { EventLog, IngestQueue } from '#shared/domain/ingest/ports.ts';

/** The event log: one record per store and `source_id`, with its data's hash. `failForget` makes `forget` throw. */
export class MemoryEventLog implements EventLog {
  readonly records = new Map<string, AcceptedEvent & { dataHash: string }>();
  failForget = false;

  async record(event: AcceptedEvent, dataHash: string) {
    const key = `${event.storeId}\n${event.sourceId}`;
    if (this.records.has(key)) return false;
    this.records.set(key, { ...event, dataHash });
    return true;
  }

  async forget(storeId: string, sourceId: string) {
    if (this.failForget) throw new Error('table unavailable');
    this.records.delete(`${storeId}\n${sourceId}`);
  }

  readonly failures = new Map<string, EventFailure>();
  readonly requeued = new Set<string>();

  async markRequeued(storeId: string, sourceId: string) {
    this.requeued.add(`${storeId}\n${sourceId}`);
  }

  async markFailed(storeId: string, sourceId: string, failure: EventFailure) {
    this.failures.set(`${storeId}\n${sourceId}`, failure);
  }

  async status(storeId: string, sourceId: string) {
    const record = this.records.get(`${storeId}\n${sourceId}`);
    const failure = this.failures.get(`${storeId}\n${sourceId}`);
    return (
      record && {
        endpoint: record.endpoint,
        interface: record.interface,
        acceptedAt: record.acceptedAt,
        ...(failure ? { failure } : {}),
      }
    );
  }

  async recorded(storeId: string, sourceId: string) {
    const record = this.records.get(`${storeId}\n${sourceId}`);
    const failure = this.failures.get(`${storeId}\n${sourceId}`);
    const requeued = this.requeued.has(`${storeId}\n${sourceId}`);
    return (
      record && {
        acceptedAt: record.acceptedAt,
        dataHash: record.dataHash,
        ...(requeued ? { requeued } : {}),
        ...(failure ? { failure } : {}),
      }
    );
  }
}

/**
 * The FIFO ingest queue: keeps what was sent with its group, and drops a second send of the same store and
 * `source_id` as the queue's deduplication does. `failures` makes that many sends throw; `calls` counts every send.
 */
export class MemoryIngestQueue implements IngestQueue {
  readonly sent: { message: IngestMessage; groupKey: string }[] = [];
  calls = 0;
  failures = 0;

  async send(message: IngestMessage, groupKey: string) {
    this.calls++;
    if (this.failures > 0) {
      this.failures--;
      throw new Error('queue unavailable');
    }
    if (this.sent.some((s) => s.message.storeId === message.storeId && s.message.sourceId === message.sourceId)) return;
    this.sent.push({ message, groupKey });
  }
}
