/**
 * Page views: every view is kept as the contact's history. Headless rules 2 and 3: a guest or non-product view is only
 * recorded; browse recovery starts only with `customerId`, `includeProduct` 1, a product known to the store with an
 * image, and a non-empty `requestId`.
 */
import type { PageViewedData } from '#shared/domain/events/payloads/engagement.ts';
import type { HeadlessPageViewedData } from '#shared/domain/events/payloads/headless.ts';
import type { IngestMessage } from '#shared/domain/ingest/model.ts';
import { type ApplyDeps, type ApplyOutcome, fireFromEvent, withoutUndefined } from './context.ts';

export const applyGeneralPageView = async (deps: ApplyDeps, message: IngestMessage): Promise<ApplyOutcome> => {
  const data = message.data as PageViewedData;
  await deps.pageViews.add(
    withoutUndefined({
      storeId: message.storeId,
      contactKey: `email:${data.email}`,
      sourceId: message.sourceId,
      url: data.url,
      productId: data.product_id,
      viewedAt: data.timestamp ?? Math.floor(message.acceptedAt / 1000),
      interface: 'general' as const,
    }),
  );
  return { applied: 'page_view', triggers: [] };
};

export const applyHeadlessPageView = async (deps: ApplyDeps, message: IngestMessage): Promise<ApplyOutcome> => {
  const data = message.data as HeadlessPageViewedData;
  const productId = data.includeProduct === 1 ? data.page.productId : undefined;
  await deps.pageViews.add(
    withoutUndefined({
      storeId: message.storeId,
      contactKey: data.customerId ? `customer:${data.customerId}` : 'guest',
      sourceId: message.sourceId,
      url: data.page.url,
      title: data.page.title,
      productId,
      viewedAt: Math.floor(message.acceptedAt / 1000),
      interface: 'headless' as const,
    }),
  );
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
  });
  return { applied: 'page_view', triggers: [kind] };
};
