/**
 * Accepting an event at the edge (spec "Event ingestion"): one conditional write records store + `source_id` (a second
 * one fails: that is the 304), then the event goes to the FIFO ingest queue in its entity's group. If the queue refuses
 * it, the record is removed again and the caller gets a retryable error, so its retry is accepted instead of being
 * answered 304 for an event that was never queued.
 */
import { createHash } from 'node:crypto';
import { unavailable } from '../../errors.ts';
import type { EventInterface } from '../events/endpoints.ts';
import type { Clock, EventLog, IngestQueue } from '../ports.ts';
import type { AuthenticatedStore } from '../stores/store.ts';

export interface AcceptDeps {
  readonly events: EventLog;
  readonly queue: IngestQueue;
  readonly clock: Clock;
  readonly onLostRecord?: (error: unknown, detail: { storeId: string; sourceId: string }) => void;
}

export interface IncomingEvent {
  readonly endpoint: string;
  readonly source_id: string;
  readonly data: Record<string, unknown>;
}

/** The entity an event is about, e.g. `customer:42`: events of one entity apply in the order they were accepted. */
export const entityKeyOf = (endpoint: string, data: Record<string, unknown>): string => {
  const family = endpoint.split('/')[0] ?? endpoint;
  const idField = family === 'carts' || family === 'checkouts' ? (data.token ?? data.id) : (data.id ?? data.product_id);
  return idField === undefined || idField === null ? family : `${family}:${String(idField)}`;
};

/** FIFO group: store + entity, hashed because SQS allows only a restricted character set and 128 characters. */
export const messageGroupOf = (storeId: string, endpoint: string, data: Record<string, unknown>): string =>
  `${storeId}.${createHash('sha256').update(entityKeyOf(endpoint, data)).digest('hex').slice(0, 32)}`;

export type AcceptOutcome = 'accepted' | 'duplicate';

export const acceptEvent = async (
  deps: AcceptDeps,
  store: AuthenticatedStore,
  iface: EventInterface,
  event: IncomingEvent,
): Promise<AcceptOutcome> => {
  const accepted = {
    storeId: store.storeId,
    sourceId: event.source_id,
    endpoint: event.endpoint,
    interface: iface,
    acceptedAt: deps.clock.now(),
  };
  if (!(await deps.events.record(accepted))) return 'duplicate';
  try {
    await deps.queue.send(
      { ...accepted, v: 1, data: event.data },
      messageGroupOf(store.storeId, event.endpoint, event.data),
    );
  } catch (sendError) {
    try {
      await deps.events.forget(store.storeId, event.source_id);
    } catch (forgetError) {
      // Both the queue and the table failed: the record stays and a retry would be answered 304. Surface it loudly.
      deps.onLostRecord?.(forgetError, { storeId: store.storeId, sourceId: event.source_id });
    }
    throw unavailable('The event could not be queued; retry the request', sendError);
  }
  return 'accepted';
};
