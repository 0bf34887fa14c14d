/**
 * Page views, kept as history that flow conditions can use (general rule 5: "history kept"). The history is the event
 * history (docs/backtest.md "The event history"): every applied `page/viewed` is in the store's packs of its day, for
 * `EVENT_HISTORY_DAYS` (default 90). A view is read back from its event (`pageViewOf`). Until the November 2026 cost pass each view was
 * also put as an item of its own (`STORE#<storeId>#VIEWS#<contactKey>`, 180 days' TTL): a write unit per view, 45 % of
 * the documented mix, for items nothing read; those written before expire by their TTL and are not read.
 */
import type { HeadlessPageViewedData } from '#shared/domain/events/payloads/headless.ts';
import { withoutUndefined } from '#shared/domain/ingest/apply/context.ts';
import type { HistoryEvent } from '#shared/domain/ingest/model.ts';

export interface PageView {
  readonly storeId: string;
  /** `email:<address>`, `customer:<id>`, or `guest` for anonymous headless views. */
  readonly contactKey: string;
  readonly sourceId: string;
  readonly url?: string;
  readonly title?: string;
  readonly productId?: string;
  /** Seconds, as sent (or the time of acceptance). */
  readonly viewedAt: number;
  readonly interface: 'general' | 'headless';
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * The page view an applied event is (its data as the edge accepted it), or undefined for another event: the general
 * interface's by email, with the time it was sent with; the headless interface's by `customerId` (`guest` without), at
 * its acceptance, with its product only when `includeProduct` is 1.
 */
export const pageViewOf = (event: HistoryEvent): PageView | undefined => {
  if (event.endpoint !== 'page/viewed') return undefined;
  const acceptedSecond = Math.floor(event.acceptedAt / 1000);
  if (event.interface === 'headless') {
    const data = event.data as HeadlessPageViewedData;
    return withoutUndefined({
      storeId: event.storeId,
      contactKey: data.customerId ? `customer:${data.customerId}` : 'guest',
      sourceId: event.sourceId,
      url: text(data.page?.url),
      title: text(data.page?.title),
      productId: data.includeProduct === 1 ? text(data.page?.productId) : undefined,
      viewedAt: acceptedSecond,
      interface: 'headless' as const,
    });
  }
  const data = event.data;
  return withoutUndefined({
    storeId: event.storeId,
    contactKey: `email:${String(data.email)}`,
    sourceId: event.sourceId,
    url: text(data.url),
    productId: text(data.product_id),
    viewedAt: typeof data.timestamp === 'number' ? data.timestamp : acceptedSecond,
    interface: 'general' as const,
  });
};
