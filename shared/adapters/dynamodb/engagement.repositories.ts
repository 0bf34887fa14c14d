/** Back-in-stock subscriptions and recorded flow triggers. */
import { type BackInStockSubscription, subscriberKey } from '#shared/domain/back-in-stock/model.ts';
import type { BackInStockRepository } from '#shared/domain/back-in-stock/ports.ts';
import type { FlowTriggers } from '#shared/domain/flows/ports.ts';
import type { FlowTrigger } from '#shared/domain/flows/trigger.ts';
import { batchDelete } from './batch.ts';
import { directPuts, type ItemWriter } from './coalesced.ts';
import { itemMeta, keys } from './keys.ts';
import { queryAll } from './query.ts';
import { putIfAbsent } from './table.ts';

/** `writes`: where subscriptions are put (the ingest worker gathers its batch's puts, `coalesced.ts`). */
export const dynamoBackInStockRepository = (writes: ItemWriter = directPuts): BackInStockRepository => {
  const key = (s: BackInStockSubscription) => keys.backInStock(s.storeId, s.productId, s.variantId, subscriberKey(s));
  return {
    async subscribe(subscription) {
      await writes.put([{ ...key(subscription), ...itemMeta('backInStock'), ...subscription }]);
    },
    listForProduct: (storeId, productId) =>
      queryAll<BackInStockSubscription>(keys.backInStockByProduct(storeId, productId).pk),
    // One `BatchWriteItem` for a restock's subscribers (25 to a call), not a `DeleteItem` each.
    remove: (subscriptions) => batchDelete(subscriptions.map(key)),
  };
};

/**
 * Records flow triggers, one item per trigger id: the observable result of the rules that decide which flow an event
 * starts. `queuedFlowTriggers` (sqs/flow-queue.ts) wraps this and queues each trigger for the flow engine.
 */
export const dynamoFlowTriggers = (): FlowTriggers => ({
  async fire(trigger: FlowTrigger) {
    await putIfAbsent({ ...keys.trigger(trigger.storeId, trigger.id), ...itemMeta('trigger'), ...trigger });
  },
});

export const listFlowTriggers = (storeId: string) => queryAll<FlowTrigger>(keys.triggers(storeId).pk);
