/**
 * What the console's overview shows beside attribution: the events the worker applied, by endpoint, and
 * the webhook delivery attempts, by outcome, per store and UTC day. Kept in the same day counters as attribution
 * (scopes `events` and `webhooks`), added by the workers at the end of each batch (`counter-buffer.ts`).
 *
 * Counted once per handling that succeeded: a message the queue redelivers after its batch's counts were written (the
 * worker died before answering the queue) counts twice; such redeliveries are rare and the counts are for a dashboard,
 * not a bill (docs/console.md).
 */
import { dayOf, EVENTS_SCOPE, WEBHOOKS_SCOPE } from '#shared/domain/attribution/model.ts';
import type { AttributionStore } from '#shared/domain/attribution/ports.ts';
import type { CountsReader, RangeCounts } from '#shared/domain/attribution/read-counts.ts';

type Adder = Pick<AttributionStore, 'add'>;

/** Failed events are counted under this name (an endpoint name has no parentheses). */
const FAILED = '(failed)';
const HEADLESS = 'headless ';

const eventCounter = (event: { readonly endpoint: string; readonly interface?: string }) =>
  event.interface === 'headless' ? `${HEADLESS}${event.endpoint}` : event.endpoint;

/** An event the worker applied. */
export const countEventApplied = (
  counters: Adder,
  event: { readonly storeId: string; readonly endpoint: string; readonly interface?: string },
  at: number,
): Promise<void> => counters.add(event.storeId, [EVENTS_SCOPE], dayOf(at), { [eventCounter(event)]: 1 });

/** An event that could never apply (recorded as failed on its event record). */
export const countEventFailed = (counters: Adder, storeId: string, at: number): Promise<void> =>
  counters.add(storeId, [EVENTS_SCOPE], dayOf(at), { [FAILED]: 1 });

/** A webhook delivery attempt's outcome: delivered, failed and retried later, or failed for good (the last one). */
export type AttemptOutcome = 'delivered' | 'retried' | 'failed';

export const countDeliveryAttempt = (
  counters: Adder,
  storeId: string,
  outcome: AttemptOutcome,
  at: number,
): Promise<void> => counters.add(storeId, [WEBHOOKS_SCOPE], dayOf(at), { [outcome]: 1 });

export interface Activity {
  /** Events applied per endpoint (`headless page/viewed` for the headless interface), most first. */
  readonly events: readonly { readonly kind: string; readonly count: number }[];
  readonly eventsApplied: number;
  readonly eventsFailed: number;
  readonly webhooks: {
    readonly attempts: number;
    readonly delivered: number;
    readonly retried: number;
    readonly failed: number;
    /** Delivered ÷ attempts; undefined without attempts. */
    readonly successRate: number | undefined;
  };
}

/** The store's activity over `from`…`to` (inclusive UTC days). */
export const readActivity = async (
  read: CountsReader,
  range: { readonly from: string; readonly to: string },
): Promise<Activity> => activityOf(await read.many(ACTIVITY_SCOPES, range));

/** The scopes the activity is counted under. */
export const ACTIVITY_SCOPES = [EVENTS_SCOPE, WEBHOOKS_SCOPE] as const;

/** The activity from its scopes' counters (`read.many` of at least `ACTIVITY_SCOPES`). */
export const activityOf = (counts: ReadonlyMap<string, RangeCounts>): Activity => {
  const none = new Map<string, number>();
  const events = counts.get(EVENTS_SCOPE)?.totals ?? none;
  const webhooks = counts.get(WEBHOOKS_SCOPE)?.totals ?? none;
  const kinds = [...events]
    .filter(([kind, count]) => kind !== FAILED && count > 0)
    .map(([kind, count]) => ({ kind, count }))
    .sort((a, b) => b.count - a.count || a.kind.localeCompare(b.kind));
  const delivered = webhooks.get('delivered') ?? 0;
  const retried = webhooks.get('retried') ?? 0;
  const failed = webhooks.get('failed') ?? 0;
  const attempts = delivered + retried + failed;
  return {
    events: kinds,
    eventsApplied: kinds.reduce((n, k) => n + k.count, 0),
    eventsFailed: events.get(FAILED) ?? 0,
    webhooks: { attempts, delivered, retried, failed, successRate: attempts > 0 ? delivered / attempts : undefined },
  };
};
