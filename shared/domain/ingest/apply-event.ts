/**
 * The worker's use case: apply one accepted event to the store's entities and decide which flows it starts (the
 * spec's table "Which endpoints start flows", headless rules 1–6). Events of one entity arrive in order (FIFO group per
 * entity); writes use optimistic concurrency, and triggers and webhook events carry ids derived from the event, so a
 * redelivered message converges to the same state and fires nothing twice.
 */

import { applyBackInStock, applyRestock } from './apply/back-in-stock.ts';
import { applyCart, applyCheckout } from './apply/carts.ts';
import type { ApplyDeps, ApplyOutcome } from './apply/context.ts';
import { applyGeneralCustomer, applyHeadlessCustomer } from './apply/customers.ts';
import { applyFlowNotify } from './apply/flow-notify.ts';
import { applyOrder } from './apply/orders.ts';
import { applyGeneralPageView, applyHeadlessPageView } from './apply/page-views.ts';
import { applyProduct } from './apply/products.ts';
import type { IngestMessage } from './model.ts';

export type { ApplyDeps, ApplyOutcome } from './apply/context.ts';

type Step = (deps: ApplyDeps, message: IngestMessage) => Promise<ApplyOutcome>;

const GENERAL: Record<string, Step> = {
  'customers/create': applyGeneralCustomer,
  'customers/update': applyGeneralCustomer,
  customers: applyGeneralCustomer,
  'orders/create': applyOrder,
  'orders/paid': applyOrder,
  'orders/fulfilled': applyOrder,
  'orders/update': applyOrder,
  'orders/cancelled': applyOrder,
  'orders/refunded': applyOrder,
  'products/create': applyProduct,
  'products/update': applyProduct,
  products: applyProduct,
  'carts/create': applyCart,
  'carts/update': applyCart,
  carts: applyCart,
  'checkouts/create': applyCheckout,
  'checkouts/update': applyCheckout,
  'page/viewed': applyGeneralPageView,
  'products/back_in_stock': applyBackInStock,
  'products/restock': applyRestock,
  'flow/notify': applyFlowNotify,
};

const HEADLESS: Record<string, Step> = {
  'page/viewed': applyHeadlessPageView,
  'carts/create': applyCart,
  'carts/update': applyCart,
  'customers/create': applyHeadlessCustomer,
  'products/back_in_stock': applyBackInStock,
};

export const applyEvent = async (deps: ApplyDeps, message: IngestMessage): Promise<ApplyOutcome> => {
  const step = (message.interface === 'headless' ? HEADLESS : GENERAL)[message.endpoint];
  if (!step) return { applied: 'none', triggers: [] };
  return step(deps, message);
};
