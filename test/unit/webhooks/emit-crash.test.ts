/**
 * Webhooks when the process stops mid-way (a SIGKILL) and the queue hands the message again: the real emitter
 * (`webhooks/emit.ts`) over in-memory ports, with a crash injected between two steps. Each event's webhook reaches the
 * delivery queue at least once, always as the same delivery (its id comes from the event and the subscription), and no
 * event and subscription ever gets a second delivery.
 */
import { describe, expect, it } from 'vitest';
import { upsertContact } from '#shared/domain/contacts/upsert-contact.ts';
import type { CustomerCreateData } from '#shared/domain/events/payloads/customers.ts';
import { runImport } from '#shared/domain/imports/run-import.ts';
import { webhookEmitter } from '#shared/domain/webhooks/emit.ts';
import type { DeliveryQueue } from '#shared/domain/webhooks/ports.ts';
import { IMPORT_STORE, importFakes, importMessage } from '#test/support/memory/imports.ts';
import { WEBHOOK_STORE, webhookFakes } from '#test/support/memory/webhooks.ts';

/** The delivery queue, stopping the process (throwing) on its first `enqueue`: the record is written, the message not. */
const killedAtFirstEnqueue = (queue: DeliveryQueue): DeliveryQueue => {
  let kills = 1;
  return {
    enqueue: async (storeId, deliveryId) => {
      if (kills-- > 0) throw new Error('killed');
      return queue.enqueue(storeId, deliveryId);
    },
  };
};

const subscribed: CustomerCreateData = {
  id: 'c1',
  email: 'ada@example.com',
  created_at: 1_700_000_000,
  email_marketing_consent: { state: 'subscribed', updatedAt: 1_700_000_001 },
} as CustomerCreateData;

/** The contact ports of the import fakes, with the real emitter over the webhook fakes. */
const contactWorld = () => ({ hooks: webhookFakes(), contacts: importFakes(Buffer.from('')) });

describe('webhooks across a crash', () => {
  it('customer/marketing: killed between the delivery record and its queue message, the redelivered event queues it', async () => {
    const { hooks, contacts } = contactWorld();
    hooks.addWebhook('customer/marketing');
    const crashing = {
      ...contacts.deps,
      webhooks: webhookEmitter({ ...hooks.deps, queue: killedAtFirstEnqueue(hooks.deps.queue) }),
    };
    const source = { storeId: WEBHOOK_STORE, storeType: 'direct', eventId: 'ev_1' } as const;
    await expect(upsertContact(crashing, source, subscribed)).rejects.toThrow('killed');

    // The queue hands the event again, to a new process.
    await upsertContact(crashing, source, subscribed);
    const deliveries = [...hooks.deliveries.values()];
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ topic: 'customer/marketing', eventId: 'marketing#ev_1', status: 'pending' });
    expect(hooks.enqueued).toEqual([{ storeId: WEBHOOK_STORE, deliveryId: deliveries[0]?.id }]);
    expect(contacts.contacts.get(`${WEBHOOK_STORE}#c1`)?.emailConsent?.state).toBe('subscribed');

    // Handled a third time (a duplicate message): still the one delivery, queued again at most.
    await upsertContact(crashing, source, subscribed);
    expect(hooks.deliveries.size).toBe(1);
    expect(new Set(hooks.enqueued.map((e) => e.deliveryId))).toEqual(new Set([deliveries[0]?.id]));
  });

  it('customer/marketing: killed after the webhook was queued but before the contact was saved, no second delivery', async () => {
    const { hooks, contacts } = contactWorld();
    hooks.addWebhook('customer/marketing');
    const save = contacts.deps.customers.save;
    let kills = 1;
    const crashing = {
      ...contacts.deps,
      customers: {
        ...contacts.deps.customers,
        save: async (...args: Parameters<typeof save>) => {
          if (kills-- > 0) throw new Error('killed');
          return save(...args);
        },
      },
      webhooks: webhookEmitter(hooks.deps),
    };
    const source = { storeId: WEBHOOK_STORE, storeType: 'direct', eventId: 'ev_2' } as const;
    await expect(upsertContact(crashing, source, subscribed)).rejects.toThrow('killed');
    await upsertContact(crashing, source, subscribed);
    expect(hooks.deliveries.size).toBe(1);
    const [delivery] = [...hooks.deliveries.values()];
    expect(hooks.enqueued.length).toBeGreaterThanOrEqual(1);
    expect(new Set(hooks.enqueued.map((e) => e.deliveryId))).toEqual(new Set([delivery?.id]));
  });

  it('bulk_operations/finish: killed between the delivery record and its queue message, the redelivered run queues it', async () => {
    const hooks = webhookFakes();
    const fakes = importFakes(Buffer.from(`${JSON.stringify({ ...subscribed, id: 'i1' })}\n`));
    // The import's store subscribes the finish topic.
    const webhook = hooks.addWebhook('bulk_operations/finish');
    await hooks.deps.webhooks.put({ ...webhook, storeId: IMPORT_STORE });
    const deps = {
      ...fakes.deps,
      webhooks: webhookEmitter({ ...hooks.deps, queue: killedAtFirstEnqueue(hooks.deps.queue) }),
    };
    await expect(runImport(deps, importMessage, () => 600_000)).rejects.toThrow('killed');
    expect(fakes.job().status).toBe('finished');

    // The queue hands the run message again.
    await runImport(deps, importMessage, () => 600_000);
    const deliveries = [...hooks.deliveries.values()].filter((d) => d.topic === 'bulk_operations/finish');
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ storeId: IMPORT_STORE, status: 'pending' });
    expect(JSON.parse(deliveries[0]?.body ?? '{}')).toEqual({ endpoint: 'customers', status: 'SUCCESS' });
    expect(hooks.enqueued).toEqual([{ storeId: IMPORT_STORE, deliveryId: deliveries[0]?.id }]);
  });
});
