/**
 * In-memory doubles of the webhooks area's ports (`shared/domain/webhooks/ports.ts`), for unit tests of the management
 * use cases and the console's re-sending. The delivery repository keeps the DynamoDB adapter's contract: reads are
 * copies, `save` is conditional on the stored revision and fails with `RevisionConflict` otherwise. A test plays a
 * concurrent writer (another request, the delivery worker) with `interfere`: it runs inside `save`, after the use case
 * read the delivery and before the condition is checked, which is exactly the window of a lost race.
 */
import { RevisionConflict } from '#shared/domain/repository.ts';
import type { Delivery } from '#shared/domain/webhooks/delivery.ts';
import type { ManageWebhookDeps } from '#shared/domain/webhooks/manage-webhooks.ts';
import type { WebhookTopic } from '#shared/domain/webhooks/topics.ts';
import type { Webhook } from '#shared/domain/webhooks/webhook.ts';

export const WEBHOOK_STORE = 'st_webhooks_unit';
export const WEBHOOK_URL = 'https://hooks.example.com/storeflow';
export const NOW = Date.UTC(2025, 0, 15, 12);

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
const keyOf = (storeId: string, id: string) => `${storeId}#${id}`;

/** A change another writer makes: the fields it sets (`reason: undefined` removes the reason, as a re-send does). */
export type DeliveryChange = {
  readonly [K in Exclude<keyof Delivery, 'storeId' | 'id' | 'revision'>]?: Delivery[K] | undefined;
};

/** Runs in `save` before its condition is checked; `write` changes the stored delivery as another writer would. */
export type Interference = (record: Delivery, write: (change: DeliveryChange) => Delivery) => void | Promise<void>;

export const webhookFakes = () => {
  const webhooks = new Map<string, Webhook>();
  const deliveries = new Map<string, Delivery>();
  const interferences = new Map<string, Interference>();
  const saves: { id: string; expectedRevision: number; conflicted: boolean }[] = [];
  const enqueued: { storeId: string; deliveryId: string }[] = [];
  let failWith: Error | undefined;

  /** Another writer's change of the stored delivery: its revision goes up by one, as every conditional write does. */
  const writeBehind = (storeId: string, id: string) => (change: DeliveryChange) => {
    const current = deliveries.get(keyOf(storeId, id));
    if (!current) throw new Error(`no delivery ${id} to change`);
    const merged: Record<string, unknown> = { ...current, ...change, revision: current.revision + 1 };
    for (const [field, value] of Object.entries(merged)) if (value === undefined) delete merged[field];
    const next = merged as unknown as Delivery;
    deliveries.set(keyOf(storeId, id), structuredClone(next));
    return next;
  };

  const deps: ManageWebhookDeps = {
    webhooks: {
      listForStore: async (storeId) => [...webhooks.values()].filter((w) => w.storeId === storeId),
      getByTopic: async (storeId, topic) => webhooks.get(keyOf(storeId, topic)),
      put: async (webhook) => {
        webhooks.set(keyOf(webhook.storeId, webhook.topic), webhook);
      },
      delete: async (storeId, topic) => {
        webhooks.delete(keyOf(storeId, topic));
      },
    },
    deliveries: {
      get: async (storeId, id) => {
        await tick();
        const delivery = deliveries.get(keyOf(storeId, id));
        return delivery && structuredClone(delivery);
      },
      save: async (record, expectedRevision) => {
        await tick();
        if (failWith) throw failWith;
        await interferences.get(record.id)?.(record, writeBehind(record.storeId, record.id));
        const conflicted = (deliveries.get(keyOf(record.storeId, record.id))?.revision ?? 0) !== expectedRevision;
        saves.push({ id: record.id, expectedRevision, conflicted });
        if (conflicted) throw new RevisionConflict(`delivery ${record.id}`);
        deliveries.set(keyOf(record.storeId, record.id), structuredClone(record));
      },
      listForWebhook: async (storeId, webhookId, page) => {
        const all = [...deliveries.values()]
          .filter((d) => d.storeId === storeId && d.webhookId === webhookId)
          .sort((a, b) => b.createdAt - a.createdAt || b.id.localeCompare(a.id));
        const from = page.cursor ? Number(page.cursor) : 0;
        const items = all.slice(from, from + page.limit).map((d) => structuredClone(d));
        const end = from + items.length;
        return end < all.length ? { items, nextCursor: String(end) } : { items };
      },
    },
    queue: {
      enqueue: async (storeId, deliveryId) => {
        enqueued.push({ storeId, deliveryId });
      },
    },
    guard: { assertPublic: async () => undefined },
    clock: { now: () => NOW },
    allowPrivateUrls: false,
  };

  const addWebhook = (topic: WebhookTopic = 'customer/newsletter', url = WEBHOOK_URL): Webhook => {
    const webhook: Webhook = {
      storeId: WEBHOOK_STORE,
      id: `wh_${topic.replace(/\W/g, '_')}`,
      topic,
      url,
      format: 'json',
      createdAt: Math.floor(NOW / 1000) - 86_400,
      updatedAt: NOW - 86_400_000,
    };
    webhooks.set(keyOf(webhook.storeId, topic), webhook);
    return webhook;
  };

  /** A delivery that ended `failed` after its ladder (revision 7: created, then six attempts written). */
  const addDelivery = (webhook: Webhook, id: string, change: Partial<Delivery> = {}): Delivery => {
    const delivery: Delivery = {
      storeId: webhook.storeId,
      id,
      webhookId: webhook.id,
      topic: webhook.topic,
      url: webhook.url,
      eventId: `newsletter#${id}`,
      body: JSON.stringify({ id }),
      status: 'failed',
      attempts: [{ at: NOW - 60_000, statusCode: 503, latencyMs: 12, outcome: 'rejected' }],
      reason: 'no HTTP 200 after 6 attempts',
      createdAt: NOW - 120_000,
      updatedAt: NOW - 60_000,
      revision: 7,
      ...change,
    };
    deliveries.set(keyOf(delivery.storeId, id), structuredClone(delivery));
    return delivery;
  };

  return {
    deps,
    addWebhook,
    addDelivery,
    /** Every stored delivery, by `<storeId>#<id>`. */
    deliveries,
    /** The stored delivery, as it is now. */
    delivery: (id: string) => deliveries.get(keyOf(WEBHOOK_STORE, id)),
    /** Plays a concurrent writer of delivery `id` during each of its writes from now on. */
    interfere: (id: string, interference: Interference) => {
      interferences.set(id, interference);
    },
    /** Every delivery write made through the port, in order, with whether it lost to a concurrent change. */
    saves,
    enqueued,
    /** Makes every delivery write fail with `error` (a dependency failure, not a conflict). */
    failSavesWith: (error: Error) => {
      failWith = error;
    },
  };
};
