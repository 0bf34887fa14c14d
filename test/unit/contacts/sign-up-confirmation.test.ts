/**
 * Double opt-in of publishable-key sign-ups (`contacts/sign-up-confirmation.ts`): the signed, expiring confirmation
 * token; the one confirmation email within its per-address and per-store bounds, untagged so SES's reports of it count
 * against no store; and the confirmation itself: subscribed with its time, the public mark gone, the welcome after.
 */
import { describe, expect, it } from 'vitest';
import { confirmationEntries } from '#shared/domain/console/contact-view.ts';
import {
  CONFIRMATIONS_PER_STORE,
  type ConfirmClaim,
  type ConfirmDeps,
  confirmSignUp,
  isExpired,
  type RequestConfirmationDeps,
  requestConfirmation,
  signConfirmToken,
  verifyConfirmToken,
  type WindowCounters,
} from '#shared/domain/contacts/sign-up-confirmation.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import type { OutboundEmail } from '#shared/domain/email/model.ts';
import { signUnsubscribeToken } from '#shared/domain/email/unsubscribe-token.ts';
import type { FlowTrigger } from '#shared/domain/flows/trigger.ts';

const STORE = 'st_AAAAAAAAAAAAAAAAAAAA';
const NOW = 1_700_000_000_000;
const SECRET = Buffer.alloc(32, 7);
const claim: ConfirmClaim = { storeId: STORE, email: 'ada@example.com', expiresAt: NOW / 1000 + 60 };

describe('the confirmation token', () => {
  it('reads back what it signed, and nothing from an altered, foreign or other-secret token', () => {
    const token = signConfirmToken(claim, SECRET);
    expect(verifyConfirmToken(token, SECRET)).toEqual(claim);
    expect(verifyConfirmToken(`${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`, SECRET)).toBeUndefined();
    expect(verifyConfirmToken(token, Buffer.alloc(32, 8))).toBeUndefined();
    const unsubscribe = signUnsubscribeToken({ storeId: STORE, email: 'ada@example.com', transmissionId: 't' }, SECRET);
    expect(verifyConfirmToken(unsubscribe, SECRET)).toBeUndefined();
    expect(verifyConfirmToken('not-a-token', SECRET)).toBeUndefined();
  });

  it('expires after its time', () => {
    expect(isExpired(claim, NOW)).toBe(false);
    expect(isExpired(claim, NOW + 61_000)).toBe(true);
  });
});

const counters = (): WindowCounters => {
  const hits = new Map<string, number>();
  return {
    take: async (key, nowMs, windowSeconds, limit) => {
      const id = `${key}@${Math.floor(nowMs / 1000 / windowSeconds)}`;
      const used = hits.get(id) ?? 0;
      if (used >= limit) return false;
      hits.set(id, used + 1);
      return true;
    },
  };
};

const requestDeps = (senderStatus: 'verified' | 'pending' = 'verified') => {
  const sent: OutboundEmail[] = [];
  let now = NOW;
  const deps: RequestConfirmationDeps = {
    mailer: {
      send: async (message) => {
        sent.push(message);
        return { messageId: `m-${sent.length}` };
      },
    },
    senders: {
      list: async () => [
        {
          storeId: STORE,
          domain: 'mail.shop.example',
          status: senderStatus,
          dkimTokens: [],
          createdAt: 0,
          checkedAt: 0,
        },
      ],
    },
    stores: { get: async () => ({ name: 'The Shop\r\nBcc: spy@evil.example' }) },
    links: { urlFor: async (c) => `https://send.example/confirm/${c.email}`, verify: async () => undefined },
    counters: counters(),
    clock: { now: () => now },
  };
  const later = (ms: number) => {
    now += ms;
  };
  return { deps, sent, later };
};

describe('requestConfirmation', () => {
  it("sends one email from the store's verified domain, tagged with its kind alone (no store), no CR/LF", async () => {
    const { deps, sent } = requestDeps();
    expect(await requestConfirmation(deps, { storeId: STORE, email: 'Ada@Example.com' })).toBe('sent');
    expect(sent).toHaveLength(1);
    const [mail] = sent;
    expect(mail?.to).toEqual({ email: 'ada@example.com' });
    expect(mail?.from.email).toBe('no-reply@mail.shop.example');
    expect(mail?.subject).not.toMatch(/[\r\n]/);
    expect(mail?.text).toContain('https://send.example/confirm/ada@example.com');
    expect(mail?.html).not.toContain('<Bcc');
    expect(mail?.tags).toEqual({ 'storeflow-kind': 'sign_up_confirmation' });
  });

  it('sends one per address a day, whatever the number of sign-ups; another the next day', async () => {
    const { deps, sent, later } = requestDeps();
    expect(await requestConfirmation(deps, { storeId: STORE, email: 'ada@example.com' })).toBe('sent');
    expect(await requestConfirmation(deps, { storeId: STORE, email: 'ADA@example.com' })).toBe('address_limit');
    later(86_400_000);
    expect(await requestConfirmation(deps, { storeId: STORE, email: 'ada@example.com' })).toBe('sent');
    expect(sent).toHaveLength(2);
  });

  it('sends at most the per-store bound an hour', async () => {
    const { deps, sent } = requestDeps();
    for (let i = 0; i < CONFIRMATIONS_PER_STORE.limit; i++) {
      await requestConfirmation(deps, { storeId: STORE, email: `a${i}@example.com` });
    }
    expect(await requestConfirmation(deps, { storeId: STORE, email: 'one-more@example.com' })).toBe('store_limit');
    expect(sent).toHaveLength(CONFIRMATIONS_PER_STORE.limit);
  });

  it('sends nothing without a verified sending domain', async () => {
    const { deps, sent } = requestDeps('pending');
    expect(await requestConfirmation(deps, { storeId: STORE, email: 'ada@example.com' })).toBe('no_sender');
    expect(sent).toEqual([]);
  });
});

const contact = (originId: string, changes: Partial<Customer>): Customer => ({
  storeId: STORE,
  id: `ct_${originId}`,
  originId,
  email: 'ada@example.com',
  platformTags: [],
  categoryTags: [],
  attributes: {},
  createdAt: 1_700_000_000,
  updatedAt: NOW,
  revision: 1,
  ...changes,
});

const confirmDeps = (contacts: Customer[]) => {
  const saved = new Map(contacts.map((c) => [c.originId, c]));
  const events: string[] = [];
  const fired: FlowTrigger[] = [];
  const deps = {
    customers: {
      get: async (_s: string, originId: string) => saved.get(originId),
      save: async (c: Customer) => {
        saved.set(c.originId, c);
        events.push(`save ${c.originId}`);
      },
    },
    contactsByEmail: { find: async () => [...saved.values()] },
    webhooks: { emit: async (_s: string, topic: string) => void events.push(topic) },
    triggers: {
      fire: async (trigger: FlowTrigger) => {
        fired.push(trigger);
        events.push(`fire ${trigger.kind}`);
      },
    },
    clock: { now: () => NOW },
  } as unknown as ConfirmDeps;
  return { deps, saved, events, fired };
};

describe('confirmSignUp', () => {
  const pending = { requestedAt: NOW - 1000 };
  const notSubscribed = { state: 'not_subscribed' as const, updatedAt: 1 };

  it('subscribes the pending contacts with the time, drops the public mark, then fires the welcome', async () => {
    const { deps, saved, events, fired } = confirmDeps([
      contact('c-1', { emailConsent: notSubscribed, emailConfirmation: pending, publicSignUp: true }),
    ]);
    expect(await confirmSignUp(deps, claim, { type: 'direct' })).toEqual({
      confirmed: 1,
      alreadyConfirmed: 0,
      customerIds: ['c-1'],
    });
    const after = saved.get('c-1');
    expect(after?.emailConsent?.state).toBe('subscribed');
    expect(after?.emailConfirmation).toEqual({ requestedAt: pending.requestedAt, confirmedAt: NOW });
    expect(after?.publicSignUp).toBeUndefined();
    expect(events).toEqual(['customer/marketing', 'save c-1', 'fire subscription_welcome']);
    expect(fired[0]).toMatchObject({ contact: { email: 'ada@example.com', customerId: 'c-1' } });
    expect(fired[0]?.publicOrigin).toBeUndefined();
  });

  it('changes nothing on a repeat (the same welcome id again), and confirms no contact that unsubscribed', async () => {
    const { deps, saved, fired } = confirmDeps([
      contact('c-1', { emailConsent: notSubscribed, emailConfirmation: pending }),
      contact('c-2', { emailConsent: { state: 'unsubscribed' }, emailConfirmation: pending }),
    ]);
    await confirmSignUp(deps, claim, { type: 'direct' });
    const first = saved.get('c-1');
    expect(await confirmSignUp(deps, claim, { type: 'direct' })).toEqual({
      confirmed: 0,
      alreadyConfirmed: 1,
      customerIds: [],
    });
    expect(saved.get('c-1')).toBe(first);
    expect(saved.get('c-2')?.emailConsent?.state).toBe('unsubscribed');
    expect(new Set(fired.map((t) => t.id)).size).toBe(1);
  });

  it('confirms no contact that never asked (a store-key contact of the address keeps its consent)', async () => {
    const { deps, saved, fired } = confirmDeps([contact('c-1', { emailConsent: notSubscribed })]);
    expect(await confirmSignUp(deps, claim, { type: 'direct' })).toEqual({
      confirmed: 0,
      alreadyConfirmed: 0,
      customerIds: [],
    });
    expect(saved.get('c-1')?.emailConsent?.state).toBe('not_subscribed');
    expect(fired).toEqual([]);
  });
});

describe("the contact's timeline", () => {
  it('shows the confirmation asked and, once given, the confirmation', () => {
    expect(confirmationEntries(contact('c-1', {}))).toEqual([]);
    expect(confirmationEntries(contact('c-1', { emailConfirmation: { requestedAt: 5, confirmedAt: 9 } }))).toEqual([
      { type: 'event', at: 5, kind: 'confirmation_requested', subject: 'customer c-1' },
      { type: 'event', at: 9, kind: 'email_confirmed', subject: 'customer c-1' },
    ]);
  });
});
