/**
 * Batch import only writes data and starts no flow (spec "Contact batch import", general interface rule 6), while a
 * consent state the file changes still emits `customer/marketing` (spec "Topics"), in the store type's format: the
 * store subscribes the topic and the deliveries recorded for it are read back. The same customer sent through the
 * general interface does record a trigger: the probe can see one when there is one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { listFlowTriggers } from '#shared/adapters/dynamodb/engagement.repositories.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import { createStore } from '#shared/domain/stores/manage-stores.ts';
import { storeAdminDeps } from '#shared/wiring/store-admin.ts';
import { deliveryRecordsOf, subscribedTo } from '#test/support/harness.ts';
import { eventually, newStore, postEvent } from '#test/support/local.ts';
import { customer, importAndWait, jsonl, uid } from './support.ts';

let runtime: LocalRuntime;
const customers = dynamoCustomerRepository();

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
});

afterAll(async () => {
  await runtime?.stop();
});

/** A stored contact written straight to the repository (as an earlier event would have left it). */
const seeded = (storeId: string, originId: string, overrides: Partial<Customer> = {}): Customer => ({
  storeId,
  id: `ct_${originId
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(0, 20)
    .padEnd(20, '0')}`,
  originId,
  email: `${originId}@example.com`,
  platformTags: [],
  categoryTags: [],
  attributes: {},
  createdAt: 1_690_000_000,
  updatedAt: Date.now(),
  revision: 1,
  ...overrides,
});

describe('an import', () => {
  it('records no flow trigger, and emits customer/marketing exactly for the consent states it changes', async () => {
    const store = await newStore('Import no flow');
    const p = uid('nf');
    const marketing = await subscribedTo(store.storeId, 'customer/marketing');
    const finished = await subscribedTo(store.storeId, 'bulk_operations/finish');
    // Existing contacts: one subscribed (the file unsubscribes it), one subscribed (the file repeats it).
    await customers.save(seeded(store.storeId, `${p}-was-sub`, { emailConsent: { state: 'subscribed' } }), 0);
    await customers.save(seeded(store.storeId, `${p}-stays-sub`, { emailConsent: { state: 'subscribed' } }), 0);

    const file = jsonl([
      customer(`${p}-plain`),
      customer(`${p}-explicit-n`, { ignore_flow: 'N' }),
      customer(`${p}-new-sub`, { email_marketing_consent: { state: 'subscribed', updatedAt: 1_700_000_100 } }),
      // "not subscribed" is what no consent already reads as: no change, no event.
      customer(`${p}-new-not`, { email_marketing_consent: { state: 'not_subscribed' } }),
      customer(`${p}-new-sms`, { phone: '+15550001111', sms_marketing_consent: { state: 'subscribed' } }),
      customer(`${p}-was-sub`, { email_marketing_consent: { state: 'unsubscribed', updatedAt: 1_700_000_200 } }),
      customer(`${p}-stays-sub`, { email_marketing_consent: { state: 'subscribed' } }),
    ]);

    const job = await importAndWait(runtime, store.apiKey, file);
    expect(job).toMatchObject({ result: 'SUCCESS', counts: { lines: 7, imported: 7, created: 5, failed: 0 } });

    // The job finished (its last step emits bulk_operations/finish after every line was written): nothing is pending.
    expect(await listFlowTriggers(store.storeId)).toEqual([]);

    const events = await deliveryRecordsOf(marketing);
    expect(events.map((event) => event.topic)).toEqual(Array(events.length).fill('customer/marketing'));
    expect(new Set(events.map((event) => event.eventId)).size).toBe(events.length);
    const byId = new Map(events.map((event) => [event.body.id, event.body]));
    expect([...byId.keys()].sort()).toEqual([`${p}-new-sms`, `${p}-new-sub`, `${p}-was-sub`].sort());
    expect(events).toHaveLength(3);
    expect(byId.get(`${p}-new-sub`)).toMatchObject({
      email: `${p}-new-sub@example.com`,
      email_marketing_consent: { state: 'SUBSCRIBED', updated_at: 1_700_000_100 },
      sms_marketing_consent: { state: 'NOT_SUBSCRIBED' },
    });
    expect(byId.get(`${p}-new-sms`)).toMatchObject({
      email_marketing_consent: { state: 'NOT_SUBSCRIBED' },
      sms_marketing_consent: { state: 'SUBSCRIBED' },
    });
    expect(byId.get(`${p}-was-sub`)).toMatchObject({
      email_marketing_consent: { state: 'UNSUBSCRIBED', updated_at: 1_700_000_200 },
    });
    expect((await customers.get(store.storeId, `${p}-was-sub`))?.emailConsent?.state).toBe('unsubscribed');

    // The job is saved finished just before the emit: wait for its delivery.
    const finish = await eventually('the bulk_operations/finish delivery', async () => {
      const found = await deliveryRecordsOf(finished);
      return found.length > 0 ? found : undefined;
    });
    expect(finish.map((e) => e.topic)).toEqual(['bulk_operations/finish']);
    expect(finish.map((e) => e.body)).toEqual([{ endpoint: 'customers', status: 'SUCCESS' }]);
  });

  it('emits customer/marketing in format two for a platform store, still with no trigger', async () => {
    const platform = await createStore(storeAdminDeps(), { name: 'Import no flow platform', type: 'platform' });
    const p = uid('nf2');
    const marketing = await subscribedTo(platform.store.storeId, 'customer/marketing');
    const job = await importAndWait(
      runtime,
      platform.apiKey,
      jsonl([customer(`${p}-sub`, { email_marketing_consent: { state: 'subscribed', updatedAt: 1_700_000_300 } })]),
    );
    expect(job).toMatchObject({ result: 'SUCCESS', counts: { lines: 1, imported: 1, created: 1 } });
    expect(await listFlowTriggers(platform.store.storeId)).toEqual([]);
    const [event, ...more] = await deliveryRecordsOf(marketing);
    expect(more).toEqual([]);
    expect(event?.topic).toBe('customer/marketing');
    expect(event?.body).toMatchObject({
      originId: `${p}-sub`,
      shopId: platform.store.storeId,
      emailMarketingConsent: { state: 1, updatedAt: 1_700_000_300 },
      smsMarketingConsent: { state: 0 },
    });
  });
});

describe('the same customer through the general interface (control)', () => {
  it('does record a customer_created trigger, so an empty trigger list above means something', async () => {
    const store = await newStore('Import control');
    const id = uid('ctl');
    const answer = await postEvent(runtime.urls.main, store.apiKey, {
      endpoint: 'customers',
      source_id: uid('src'),
      data: customer(id),
    });
    expect(answer.body).toEqual({ code: 200, message: 'ok' });
    const triggers = await eventually('a customer_created trigger', async () => {
      const found = await listFlowTriggers(store.storeId);
      return found.length > 0 ? found : undefined;
    });
    expect(triggers.map((t) => [t.kind, t.subject.id])).toEqual([['customer_created', id]]);
  });
});
