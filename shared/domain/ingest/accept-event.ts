/**
 * Accepting an event at the edge (spec "Event ingestion"): one conditional write records store + `source_id` (a second
 * one fails: that is the 304), then the event goes to the FIFO ingest queue in its entity's group. If the queue refuses
 * it, the record is removed again and the caller gets a retryable error, so its retry is accepted instead of being
 * answered 304 for an event that was never queued.
 *
 * The spec's 40 requests/second per store and interface is charged to new events only: a duplicate is answered 304
 * whatever the rate ("duplicate ignored, normal"), so 50 identical requests racing get one 200 and 49 304s. A window
 * already known full is refused before any write, so a flood costs no table writes.
 */
import { createHash } from 'node:crypto';
import { rateLimited, unavailable } from '../../errors.ts';
import { LIMITS } from '../../limits.ts';
import type { EventInterface } from '../events/endpoints.ts';
import type { Clock, EventLog, IngestQueue, RateLimiter } from '../ports.ts';
import type { AuthenticatedStore } from '../stores/store.ts';

export interface AcceptDeps {
  readonly events: EventLog;
  readonly queue: IngestQueue;
  readonly limiter: RateLimiter;
  readonly clock: Clock;
  readonly onLostRecord?: (error: unknown, detail: { storeId: string; sourceId: string }) => void;
}

export interface IncomingEvent {
  readonly endpoint: string;
  readonly source_id: string;
  readonly data: Record<string, unknown>;
}

/**
 * The entity an event is about, e.g. `customers:42`: events of one entity apply in the order they were accepted. Both
 * interfaces map the same entity to the same key (a headless and a general write of one cart stay in order), and a
 * product's writes, its back-in-stock subscriptions and its restocks share one key ("back_in_stock then restock"; a
 * product update that restocks a variant comes after the subscriptions sent before it).
 */
export const entityKeyOf = (endpoint: string, data: Record<string, unknown>): string => {
  const family = endpoint.split('/')[0] ?? endpoint;
  const pick = (...values: unknown[]) => values.find((value) => value !== undefined && value !== null && value !== '');
  const id =
    endpoint === 'products/back_in_stock' || endpoint === 'products/restock'
      ? `products:${String(data.product_id)}`
      : endpoint === 'page/viewed'
        ? `views:${String(pick(data.email, data.customerId, 'guest'))}`
        : endpoint === 'flow/notify'
          ? `notify:${String(pick(data.email, data.phone, data.flow_id))}`
          : family === 'carts' || family === 'checkouts'
            ? `${family}:${String(pick(data.token, data.id))}`
            : `${family}:${String(pick(data.id))}`;
  return id;
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
    storeType: store.type,
  };
  const rateKey = `${store.storeId}#${iface}`;
  if (deps.limiter.isSaturated(rateKey)) throw rateLimited(1);
  if (!(await deps.events.record(accepted))) return 'duplicate';
  const verdict = await deps.limiter.take(rateKey, LIMITS.eventsPerSecond).catch(async (error: unknown) => {
    await forget(deps, accepted);
    throw error;
  });
  if (!verdict.allowed) {
    await forget(deps, accepted);
    throw rateLimited(verdict.retryAfterSeconds);
  }
  try {
    await deps.queue.send(
      { ...accepted, v: 1, data: event.data },
      messageGroupOf(store.storeId, event.endpoint, event.data),
    );
  } catch (sendError) {
    await forget(deps, accepted);
    throw unavailable('The event could not be queued; retry the request', sendError);
  }
  return 'accepted';
};

/** Removes the record of an event that was not queued, so the caller's retry is accepted. */
const forget = async (deps: AcceptDeps, event: { storeId: string; sourceId: string }) => {
  try {
    await deps.events.forget(event.storeId, event.sourceId);
  } catch (error) {
    // The table failed twice: the record stays and a retry would be answered 304. Surface it loudly.
    deps.onLostRecord?.(error, { storeId: event.storeId, sourceId: event.sourceId });
  }
};
