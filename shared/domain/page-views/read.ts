/** Reading a contact's page views back: from the event history, where every applied view is (`model.ts`). */
import { type EventHistory, readHistory } from '#shared/domain/ingest/event-history.ts';
import { type PageView, pageViewOf } from './model.ts';

/** The contact's page views accepted within `[from, to)` (epoch ms), in acceptance order, each once. */
export const readPageViews = async (
  history: Pick<EventHistory, 'page'>,
  storeId: string,
  contactKey: string,
  from: number,
  to: number,
): Promise<PageView[]> => {
  const views: PageView[] = [];
  for await (const day of readHistory(history, storeId, from, to)) {
    for (const event of day) {
      const view = pageViewOf(event);
      if (view?.contactKey === contactKey) views.push(view);
    }
  }
  return views;
};
