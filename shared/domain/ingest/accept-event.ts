/**
 * Accepting an event at the edge (spec "Event ingestion"): one conditional write records store + `source_id` (a second
 * one fails: that is the 304), then the event goes to the FIFO ingest queue in its entity's group. If the queue refuses
 * it, the record is removed again and the caller gets a retryable error, so its retry is accepted instead of being
 * answered 304 for an event that was never queued.
 *
 * The spec's 40 requests/second per store and interface is charged to new events only; duplicates ("ignored, normal")
 * have a budget of their own (`LIMITS.duplicatesPerSecond`), so 50 identical requests racing get one 200 and 49 304s
 * while a loop re-sending old events is answered 429. A window already known full is refused before any write, so a
 * flood costs no table writes; then a duplicate is answered 429 too (the spec's rate counts requests), and its retry
 * once the window has room is answered 304.
 *
 * A crash (or a table that failed twice) between the record and the send leaves a record whose event was never queued;
 * the caller, who got no answer, retries and would be told 304 for an event nobody will apply. So a retry of the same
 * event (same data: the record keeps its hash) within `REQUEUE_WINDOW_MS` of the record is sent to the queue again,
 * with the same deduplication id (store + `source_id`): SQS FIFO drops it when the first send went through (its window
 * is five minutes) and queues it when it did not. Were it queued twice all the same, it is the same event delivered
 * twice, which the worker tolerates as it does SQS's own redeliveries. Once such a re-send went through, the record
 * says so, and later duplicates cost no send. A duplicate with other data, or an older one, is answered 304 and changes
 * nothing.
 */
import { createHash } from 'node:crypto';
import type { Clock } from '#shared/domain/clock.ts';
import type { EventInterface } from '#shared/domain/events/endpoints.ts';
import type { AuthenticatedStore } from '#shared/domain/stores/model.ts';
import type { RateLimiter } from '#shared/domain/stores/ports.ts';
import { rateLimited, unavailable } from '#shared/errors.ts';
import { LIMITS } from '#shared/limits.ts';
import type { AcceptedEvent } from './model.ts';
import type { EventLog, IngestQueue } from './ports.ts';

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
        ? `views:${String(pick(data.email, data.customerId) ?? guestLaneOf(data))}`
        : endpoint === 'flow/notify'
          ? `notify:${String(pick(data.email, data.phone, data.flow_id))}`
          : family === 'carts' || family === 'checkouts'
            ? `${family}:${String(pick(data.token, data.id))}`
            : `${family}:${String(pick(data.id))}`;
  return id;
};

/**
 * Anonymous page views have no contact to keep in order (the spec names no order among a guest's views, and a view
 * without `customerId` or `email` starts no flow), so they are spread over `GUEST_VIEW_LANES` FIFO groups by a hash
 * of the view's `requestId` (its own id; `url` when a caller left it out) instead of sharing one group per store,
 * which a single consumer drains one batch at a time (~50 views/s, below the store's own 40 events/s plus its
 * publishable budget). Views of a known contact keep that contact's group and order.
 */
export const GUEST_VIEW_LANES = 16;

const guestLaneOf = (data: Record<string, unknown>): string => {
  const page = typeof data.page === 'object' && data.page !== null ? (data.page as Record<string, unknown>) : {};
  const seed = String(data.requestId ?? page.url ?? data.url ?? '');
  return `guest#${createHash('sha256').update(seed).digest().readUInt32BE(0) % GUEST_VIEW_LANES}`;
};

/** FIFO group: store + entity, hashed because SQS allows only a restricted character set and 128 characters. */
export const messageGroupOf = (storeId: string, endpoint: string, data: Record<string, unknown>): string =>
  `${storeId}.${createHash('sha256').update(entityKeyOf(endpoint, data)).digest('hex').slice(0, 32)}`;

export type AcceptOutcome = 'accepted' | 'duplicate';

/** Inside SQS FIFO's five-minute deduplication window, with a minute's margin for clocks and slow sends. */
export const REQUEUE_WINDOW_MS = 4 * 60_000;

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
    ...(store.publishable ? { key: 'publishable' as const } : {}),
  };
  // The publishable key, public in the storefront's pages, counts apart from the store key: a flooded storefront
  // key takes its own budget, never the merchant's (docs/limits.md).
  const rateKey = `${store.storeId}#${iface}${store.publishable ? '#publishable' : ''}`;
  if (deps.limiter.isSaturated(rateKey)) throw rateLimited(1);
  const dataHash = hashOf(event.data);
  if (!(await deps.events.record(accepted, dataHash))) {
    await chargeDuplicate(deps, `${rateKey}#duplicates`);
    await requeueRetry(deps, accepted, event, dataHash);
    return 'duplicate';
  }
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

const hashOf = (data: Record<string, unknown>) => createHash('sha256').update(JSON.stringify(data)).digest('base64url');

/**
 * A retry of a recently recorded event with the same data: queue it again, in case the first send never happened (SQS
 * drops it otherwise). If the queue refuses, the caller gets a retryable error: its event may not be queued yet.
 */
const requeueRetry = async (deps: AcceptDeps, accepted: AcceptedEvent, event: IncomingEvent, dataHash: string) => {
  const recorded = await deps.events.recorded(accepted.storeId, accepted.sourceId);
  if (recorded?.dataHash !== dataHash || recorded.requeued) return;
  if (deps.clock.now() - recorded.acceptedAt > REQUEUE_WINDOW_MS) return;
  try {
    await deps.queue.send(
      { ...accepted, acceptedAt: recorded.acceptedAt, v: 1, data: event.data },
      messageGroupOf(accepted.storeId, event.endpoint, event.data),
    );
  } catch (sendError) {
    throw unavailable('The event could not be queued; retry the request', sendError);
  }
  // The event is queued now, whatever happened to the first send: later duplicates need no send.
  await deps.events.markRequeued(accepted.storeId, accepted.sourceId);
};

/** A duplicate counts against its own per-second budget (429 beyond it), never against the event rate. */
const chargeDuplicate = async (deps: AcceptDeps, key: string) => {
  if (deps.limiter.isSaturated(key)) throw rateLimited(1);
  const verdict = await deps.limiter.take(key, LIMITS.duplicatesPerSecond);
  if (!verdict.allowed) throw rateLimited(verdict.retryAfterSeconds);
};

/** Removes the record of an event that was not queued, so the caller's retry is accepted. */
const forget = async (deps: AcceptDeps, event: { storeId: string; sourceId: string }) => {
  try {
    await deps.events.forget(event.storeId, event.sourceId);
  } catch (error) {
    // The table failed twice: the record stays (a retry within the requeue window still gets the event queued).
    deps.onLostRecord?.(error, { storeId: event.storeId, sourceId: event.sourceId });
  }
};
