/**
 * What an event sent with the publishable key (public in the storefront's pages) may do to customers: a headless
 * `customers/create` signs up a new customer, never subscribed and without a welcome, and changes nothing of an existing
 * one nor starts anything for it. The key kind travels on the queued message; a message queued before it did (no `key`)
 * is the store key's.
 */
import { describe, expect, it } from 'vitest';
import type { Customer } from '#shared/domain/customers/model.ts';
import { signUpConsentState } from '#shared/domain/ingest/apply/customers.ts';
import { type ApplyDeps, applyEvent } from '#shared/domain/ingest/apply-event.ts';
import { parseIngestMessage } from '#shared/domain/ingest/ingest-message.ts';
import type { IngestMessage } from '#shared/domain/ingest/model.ts';

const STORE = 'st_AAAAAAAAAAAAAAAAAAAA';
const NOW = 1_700_000_000_000;

const setup = () => {
  const customers = new Map<string, Customer>();
  const emitted: string[] = [];
  const fired: string[] = [];
  const asked: string[] = [];
  const deps = {
    confirmations: { request: async (_storeId: string, email: string) => void asked.push(email) },
    customers: {
      get: async (_storeId: string, originId: string) => customers.get(originId),
      save: async (customer: Customer) => void customers.set(customer.originId, customer),
    },
    webhooks: { emit: async (_storeId: string, topic: string) => void emitted.push(topic) },
    triggers: { fire: async (trigger: { kind: string }) => void fired.push(trigger.kind) },
    clock: { now: () => NOW },
    newContactId: () => `ct_${customers.size + 1}`,
  } as unknown as ApplyDeps;
  return { customers, emitted, fired, asked, deps };
};

const signUp = (data: Record<string, unknown>, key?: 'publishable'): IngestMessage => ({
  v: 1,
  storeId: STORE,
  sourceId: `s-${Math.random()}`,
  endpoint: 'customers/create',
  interface: 'headless',
  acceptedAt: NOW,
  storeType: 'direct',
  ...(key ? { key } : {}),
  data: { created_at: 1_700_000_000, ...data },
});

describe('a headless sign-up through the publishable key', () => {
  it('creates a new customer and reports it (customer/newsletter), but starts no welcome; the store key’s starts it', async () => {
    const { customers, emitted, fired, deps } = setup();
    const outcome = await applyEvent(deps, signUp({ id: 'c-1', email: 'new@example.com' }, 'publishable'));
    expect(customers.get('c-1')).toMatchObject({ email: 'new@example.com' });
    expect(outcome).toEqual({ applied: 'customer', triggers: [], contact: { customerId: 'c-1' } });
    expect(emitted).toContain('customer/newsletter');
    expect(fired).toEqual([]);

    await applyEvent(deps, signUp({ id: 'c-2', email: 'other@example.com' }));
    expect(fired).toEqual(['subscription_welcome']);
  });

  it('starts no welcome when a new id names an existing customer’s address, and leaves that customer as it was', async () => {
    const { customers, fired, deps } = setup();
    await applyEvent(deps, signUp({ id: 'c-1', email: 'ada@example.com', first_name: 'Ada' }));
    const before = customers.get('c-1');
    fired.length = 0;
    await applyEvent(deps, signUp({ id: 'c-9', email: 'ada@example.com', first_name: 'Eve' }, 'publishable'));
    expect(customers.get('c-1')).toBe(before);
    expect(customers.get('c-9')?.emailConsent?.state).toBe('not_subscribed');
    expect(fired).toEqual([]);
  });

  it('changes nothing of an existing customer and starts nothing; the store key’s sign-up still updates it', async () => {
    const { customers, emitted, fired, deps } = setup();
    await applyEvent(deps, signUp({ id: 'c-1', email: 'ada@example.com', first_name: 'Ada' }));
    const before = customers.get('c-1');
    emitted.length = 0;
    fired.length = 0;

    const outcome = await applyEvent(
      deps,
      signUp({ id: 'c-1', email: 'attacker@evil.example', first_name: 'Eve' }, 'publishable'),
    );
    expect(outcome).toEqual({ applied: 'none', triggers: [] });
    expect(customers.get('c-1')).toBe(before);
    expect(emitted).toEqual([]);
    expect(fired).toEqual([]);

    await applyEvent(deps, signUp({ id: 'c-1', email: 'ada@new.example' }));
    expect(customers.get('c-1')).toMatchObject({ email: 'ada@new.example' });
  });
});

describe('the consent a sign-up stores', () => {
  it('is never subscribed through the publishable key, given or implied; the store key’s is as given', async () => {
    const { customers, deps } = setup();
    const subscribed = { state: 'subscribed', opt_in_level: 'single_opt_in', updated_at: 1_700_000_000 };
    await applyEvent(
      deps,
      signUp(
        { id: 'c-1', email: 'a@example.com', phone: '+33612345678', email_marketing_consent: subscribed },
        'publishable',
      ),
    );
    expect(customers.get('c-1')?.emailConsent?.state).toBe('not_subscribed');
    expect(customers.get('c-1')?.smsConsent?.state).toBe('not_subscribed');
    await applyEvent(deps, signUp({ id: 'c-2', email: 'b@example.com', email_marketing_consent: subscribed }));
    expect(customers.get('c-2')?.emailConsent?.state).toBe('subscribed');
    await applyEvent(deps, signUp({ id: 'c-3', email: 'c@example.com' }));
    expect(customers.get('c-3')?.emailConsent?.state).toBe('subscribed');
  });

  it('is pending confirmation when email consent is given or implied through the publishable key: one email asks', async () => {
    const { customers, asked, deps } = setup();
    const given = (state: string) => ({ state, opt_in_level: 'single_opt_in', updated_at: 1_700_000_000 });
    await applyEvent(deps, signUp({ id: 'c-1', email: 'a@example.com' }, 'publishable'));
    await applyEvent(
      deps,
      signUp({ id: 'c-2', email: 'b@example.com', email_marketing_consent: given('subscribed') }, 'publishable'),
    );
    await applyEvent(
      deps,
      signUp({ id: 'c-3', email: 'c@example.com', email_marketing_consent: given('not_subscribed') }, 'publishable'),
    );
    await applyEvent(deps, signUp({ id: 'c-4', phone: '+33612345678' }, 'publishable'));
    await applyEvent(deps, signUp({ id: 'c-5', email: 'e@example.com' }));
    expect(asked).toEqual(['a@example.com', 'b@example.com']);
    expect(customers.get('c-1')?.emailConfirmation).toEqual({ requestedAt: NOW });
    expect(customers.get('c-2')?.emailConfirmation).toEqual({ requestedAt: NOW });
    for (const id of ['c-3', 'c-4', 'c-5']) expect(customers.get(id)?.emailConfirmation).toBeUndefined();
  });

  it('keeps the other states as given', () => {
    expect(signUpConsentState('subscribed', true)).toBe('not_subscribed');
    expect(signUpConsentState('unsubscribed', true)).toBe('unsubscribed');
    expect(signUpConsentState('not_subscribed', true)).toBe('not_subscribed');
    expect(signUpConsentState('subscribed', false)).toBe('subscribed');
  });
});

describe('the ingest message’s key kind', () => {
  const body = (extra: Record<string, unknown>) =>
    JSON.stringify({ ...signUp({ id: 'c-1', email: 'a@example.com' }), ...extra });

  it('reads a message without one (queued before the kind was carried) as the store key’s', () => {
    expect(parseIngestMessage(body({})).key).toBeUndefined();
    expect(parseIngestMessage(body({ key: 'publishable' })).key).toBe('publishable');
  });

  it('reports the sign-up (customer/newsletter) even when the process stops right after saving the customer', async () => {
    const { customers, emitted, deps } = setup();
    const save = deps.customers.save;
    let stops = 1;
    const stopping = {
      ...deps,
      customers: {
        ...deps.customers,
        save: async (...args: Parameters<typeof save>) => {
          await save(...args);
          if (stops-- > 0) throw new Error('killed');
        },
      },
    } as ApplyDeps;
    const message = signUp({ id: 'c-stop', email: 'stop@example.com' }, 'publishable');
    await expect(applyEvent(stopping, message)).rejects.toThrow('killed');
    // The queue hands the message again: the customer exists, so the publishable key changes nothing of it.
    expect(await applyEvent(stopping, message)).toMatchObject({ applied: 'none' });
    expect(customers.get('c-stop')).toMatchObject({ email: 'stop@example.com' });
    expect(emitted).toContain('customer/newsletter');
  });
});
