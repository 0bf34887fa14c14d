/**
 * Page views: every view is kept as the contact's history, in the event history the worker writes once the batch has
 * applied (`shared/domain/page-views/model.ts`: nothing else is written for a view). Headless rules 2 and 3: a guest or
 * non-product view is only recorded; browse recovery starts only with `customerId`, `includeProduct` 1, a product known
 * to the store with an image, and a non-empty `requestId`.
 */
import type { HeadlessPageViewedData } from '#shared/domain/events/payloads/headless.ts';
import type { IngestMessage } from '#shared/domain/ingest/model.ts';
import { type ApplyDeps, type ApplyOutcome, fireFromEvent } from './context.ts';

/** A general view starts no flow (rule 5): the event history keeps it. */
export const applyGeneralPageView = async (): Promise<ApplyOutcome> => ({ applied: 'page_view', triggers: [] });

export const applyHeadlessPageView = async (deps: ApplyDeps, message: IngestMessage): Promise<ApplyOutcome> => {
  const data = message.data as HeadlessPageViewedData;
  const productId = data.includeProduct === 1 ? data.page.productId : undefined;
  if (!data.customerId || !productId || data.requestId.trim() === '') return { applied: 'page_view', triggers: [] };
  const product = await deps.products.get(message.storeId, productId);
  if (!product?.src) return { applied: 'page_view', triggers: [] };
  const customer = await deps.customers.get(message.storeId, data.customerId);
  const kind = await fireFromEvent(deps, message, {
    kind: 'browse_recovery',
    subject: { type: 'product', id: product.id },
    contact: { customerId: data.customerId, email: customer?.email, phone: customer?.phone },
    context: {
      product: { id: product.id, title: product.title, src: product.src, purchaseUrl: product.purchaseUrl },
      page: { url: data.page.url, title: data.page.title },
      requestId: data.requestId,
    },
    publicOrigin: message.key === 'publishable',
  });
  return { applied: 'page_view', triggers: [kind] };
};
