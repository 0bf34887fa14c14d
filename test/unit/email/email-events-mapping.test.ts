/**
 * SES events → `transmission/callback` (spec "Email events"), on the pure domain with in-memory ports: parsing the SNS
 * envelope (and a raw delivery), the spec's eventData per eventType, the record-first / tags-fallback origin, the
 * first-open rule, suppressions, and what is refused as permanent.
 */

import { describe, expect, it } from 'vitest';
import { type EventMail, sesEventJson, snsNotification } from '#local/emulators/ses-events.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import { type EmailEventDeps, handleSesEvent } from '#shared/domain/email/email-events.ts';
import type { SentMessage, Suppression } from '#shared/domain/email/model.ts';
import { bareAddress, parseSesNotification } from '#shared/domain/email/ses-event.ts';
import type { WebhookTopic } from '#shared/domain/webhooks/topics.ts';
import { PermanentError } from '#shared/errors.ts';
import { memoryAttribution } from '#test/support/memory/attribution.ts';

interface Emitted {
  readonly storeId: string;
  readonly topic: WebhookTopic;
  readonly body: Record<string, unknown>;
  readonly eventId: string;
}

const SENT: SentMessage = {
  messageId: 'msg-1',
  storeId: 'st_store1',
  transmissionId: 'tx_batch1',
  kind: 'bulk',
  rcptTo: 'ada@example.com',
  msgFrom: 'news@shop.example',
  sentAt: 1_700_000_000_000,
};

/** In-memory ports; `emitted` lists every emit, `delivered` only the first per event id (what a receiver gets). */
/** `notedBefore`: messages whose delivery an older handling noted (no mark: it counted by its once-key). */
const fakes = (sent: SentMessage[] = [SENT], customers: Customer[] = [], notedBefore: string[] = []) => {
  const deliveries = new Map<string, 'counted' | 'unknown'>(notedBefore.map((id) => [id, 'unknown']));
  const emitted: Emitted[] = [];
  const suppressed: Suppression[] = [];
  const counted: { storeId: string; day: string; event: string }[] = [];
  const opened = new Set<string>();
  const notes: { messageId: string; rcptTo: string; sentAt: number; outcome: string; at: number; detail?: string }[] =
    [];
  const byKey = new Map(customers.map((c) => [`${c.storeId}#${c.originId}`, c]));
  const deps: EmailEventDeps = {
    attribution: memoryAttribution().store,
    reputation: {
      count: async (storeId, day, event) => {
        counted.push({ storeId, day, event });
      },
    },
    sentMessages: {
      record: async () => undefined,
      get: async (id) => sent.find((m) => m.messageId === id),
      firstOpen: async (id) => {
        if (opened.has(id) || !sent.some((m) => m.messageId === id)) return false;
        opened.add(id);
        return true;
      },
    },
    suppressions: {
      suppressedAmong: async (storeId, emails) =>
        new Set(suppressed.filter((s) => s.storeId === storeId && emails.includes(s.email)).map((s) => s.email)),
      suppress: async (entry) => {
        if (!suppressed.some((s) => s.storeId === entry.storeId && s.email === entry.email)) suppressed.push(entry);
      },
    },
    webhooks: {
      emit: async (storeId, topic, body, eventId) => {
        emitted.push({ storeId, topic, body, eventId });
      },
    },
    customers: {
      get: async (storeId, originId) => byKey.get(`${storeId}#${originId}`),
      save: async (customer) => {
        byKey.set(`${customer.storeId}#${customer.originId}`, customer);
      },
    },
    contactsByEmail: {
      find: async (storeId, email) =>
        [...byKey.values()].filter((c) => c.storeId === storeId && c.email?.toLowerCase() === email.toLowerCase()),
    },
    stores: {
      get: async (storeId) =>
        storeId === SENT.storeId
          ? { storeId, type: 'direct', name: 'Shop', keyHash: 'h', keyCipher: 'c', createdAt: 0 }
          : undefined,
    },
    contactEmails: {
      note: async (message, outcome, at, detail) => {
        notes.push({ ...message, outcome, at, ...(detail === undefined ? {} : { detail }) });
      },
      // As the table: only a message with a record (each SENT one has), its first delivery noted with its mark.
      noteDelivered: async (message, at) => {
        const known = deliveries.get(message.messageId);
        if (known) return known;
        if (!sent.some((m) => m.messageId === message.messageId)) return 'unknown';
        deliveries.set(message.messageId, 'counted');
        notes.push({ ...message, outcome: 'delivered', at });
        return 'first';
      },
    },
    clock: { now: () => 1_700_000_500_000 },
  };
  const delivered = () => {
    const seen = new Set<string>();
    return emitted.filter((e) => !seen.has(e.eventId) && seen.add(e.eventId));
  };
  return { deps, emitted, delivered, suppressed, byKey, counted, notes };
};

const mail: EventMail = {
  messageId: SENT.messageId,
  source: '"Shop News" <news@shop.example>',
  destination: ['Ada <ada@example.com>'],
  tags: { 'storeflow-store': SENT.storeId, 'storeflow-transmission': SENT.transmissionId },
  sentAt: SENT.sentAt,
};
const AT = 1_700_000_123_456;
type Simulated = Parameters<typeof sesEventJson>[1];
/** A queue message body exactly as SNS delivers the SES event to SQS. */
const notification = (event: Simulated, at = AT, about = mail) =>
  JSON.stringify(snsNotification(sesEventJson(about, event, at), at));
const handle = (deps: EmailEventDeps, body: string, redelivered = false) =>
  handleSesEvent(deps, parseSesNotification(body), { redelivered });

describe('parsing SES notifications', () => {
  it('reads the SES event inside the SNS envelope and a raw delivery alike', () => {
    const json = sesEventJson(mail, { type: 'click', userAgent: 'UA', link: 'https://shop.example/p/1' }, AT);
    const viaSns = parseSesNotification(JSON.stringify(snsNotification(json, AT)));
    expect(viaSns).toMatchObject({ type: 'click', at: AT, link: 'https://shop.example/p/1', userAgent: 'UA' });
    expect(viaSns.mail).toMatchObject({ messageId: 'msg-1', destination: ['Ada <ada@example.com>'] });
    expect(parseSesNotification(JSON.stringify(json))).toEqual(viaSns);
  });

  it.each([
    ['not JSON', '{"Type":'],
    ['an SNS message that is not a notification', JSON.stringify({ Type: 'SubscriptionConfirmation', Token: 't' })],
    ['an envelope whose Message is not JSON', JSON.stringify({ Type: 'Notification', Message: 'hello' })],
    ['an event without mail', JSON.stringify({ eventType: 'Delivery' })],
    ['an event without a message id', JSON.stringify({ eventType: 'Delivery', mail: { source: 'a@b.c' } })],
    ['an unknown eventType', JSON.stringify({ eventType: 'Teleport', mail: { messageId: 'm' } })],
    ['a click without its link', JSON.stringify({ eventType: 'Click', mail: { messageId: 'm' }, click: {} })],
  ])('refuses %s as permanent (logged and acknowledged, never retried)', (_, body) => {
    expect(() => parseSesNotification(body)).toThrow(PermanentError);
  });

  it('reads the bare address of a display-name sender', () => {
    expect(bareAddress('"Shop, News" <News@Shop.example>')).toBe('news@shop.example');
    expect(bareAddress('plain@example.com')).toBe('plain@example.com');
  });
});

describe('the spec eventData per eventType', () => {
  const timestamp = String(Math.floor(AT / 1000));

  it('delivery: reason and error_code null, timestamp a string of epoch seconds', async () => {
    const { deps, emitted } = fakes();
    await handle(deps, notification({ type: 'delivery' }));
    expect(emitted).toEqual([
      {
        storeId: SENT.storeId,
        topic: 'transmission/callback',
        eventId: expect.stringContaining('msg-1'),
        body: {
          eventType: 'delivery',
          eventData: {
            reason: null,
            msg_from: 'news@shop.example',
            rcpt_to: 'ada@example.com',
            error_code: null,
            transmission_id: 'tx_batch1',
            timestamp,
          },
        },
      },
    ]);
  });

  it('hard bounce: the receiver diagnostic as reason, the SMTP status as error_code, and the address suppressed', async () => {
    const { deps, emitted, suppressed } = fakes();
    const diagnostic = 'smtp; 550 5.1.1 user unknown';
    await handle(deps, notification({ type: 'bounce', bounceType: 'Permanent', diagnostic }));
    expect(emitted[0]?.body).toEqual({
      eventType: 'bounce',
      eventData: {
        reason: diagnostic,
        msg_from: 'news@shop.example',
        rcpt_to: 'ada@example.com',
        error_code: '5.1.1',
        transmission_id: 'tx_batch1',
        timestamp,
      },
    });
    expect(suppressed).toEqual([
      {
        storeId: SENT.storeId,
        email: 'ada@example.com',
        reason: 'hard_bounce',
        at: 1_700_000_500_000,
        transmissionId: 'tx_batch1',
      },
    ]);
  });

  it('soft bounce: reported, not suppressed', async () => {
    const { deps, emitted, suppressed } = fakes();
    await handle(deps, notification({ type: 'bounce', bounceType: 'Transient', diagnostic: 'smtp; 452 4.2.2 full' }));
    expect(emitted[0]?.body).toMatchObject({ eventType: 'bounce', eventData: { error_code: '4.2.2' } });
    expect(suppressed).toEqual([]);
  });

  it("counts deliveries, hard bounces and complaints for the store's sending guard, not soft bounces", async () => {
    const { deps, counted } = fakes();
    await handle(deps, notification({ type: 'delivery' }));
    await handle(deps, notification({ type: 'bounce', bounceType: 'Permanent', diagnostic: 'smtp; 550 5.1.1 x' }));
    await handle(deps, notification({ type: 'bounce', bounceType: 'Transient', diagnostic: 'smtp; 452 4.2.2 full' }));
    expect(counted.map((c) => c.event)).toEqual(['delivered', 'bounced']);
    expect(counted.every((c) => c.storeId === SENT.storeId && /^\d{8}$/.test(c.day))).toBe(true);
  });

  it('counts a delivery once however often it comes: by the note on its record, else by its once-key', async () => {
    const delivered = async (deps: EmailEventDeps) =>
      (await deps.attribution.days(SENT.storeId, 'store', '0000', '9999')).reduce(
        (sum, { counts }) => sum + (counts.delivered ?? 0),
        0,
      );
    // Noted on its record in the write that makes the handling the one to count it; a redelivery counts nothing.
    const recorded = fakes();
    await handle(recorded.deps, notification({ type: 'delivery' }));
    await handle(recorded.deps, notification({ type: 'delivery' }), true);
    expect(await delivered(recorded.deps)).toBe(1);
    // No record (the event overtook it): its once-key decides.
    const unrecorded = fakes([]);
    await handle(unrecorded.deps, notification({ type: 'delivery' }));
    await handle(unrecorded.deps, notification({ type: 'delivery' }), true);
    expect(await delivered(unrecorded.deps)).toBe(1);
    // Noted by a handling from before the mark (a deploy with events in flight) that claimed its once-key: not again.
    const older = fakes([SENT], [], [SENT.messageId]);
    await older.deps.attribution.claimOnce(SENT.storeId, `delivered#email#${SENT.messageId}#delivery#${AT}`);
    await handle(older.deps, notification({ type: 'delivery' }), true);
    expect(await delivered(older.deps)).toBe(0);
  });

  it('initial_open for the first open only; a redelivered open may re-emit under the same id', async () => {
    const { deps, emitted, delivered } = fakes();
    await handle(deps, notification({ type: 'open', userAgent: 'Mail/1' }, AT));
    await handle(deps, notification({ type: 'open', userAgent: 'Mail/2' }, AT + 60_000));
    expect(emitted).toHaveLength(1);
    expect(emitted[0]?.body).toEqual({
      eventType: 'initial_open',
      eventData: {
        msg_from: 'news@shop.example',
        rcpt_to: 'ada@example.com',
        transmission_id: 'tx_batch1',
        user_agent: 'Mail/1',
        timestamp,
      },
    });
    // A crash after `firstOpen` and before the emit: the queue redelivers, and the fixed id keeps it one webhook.
    await handle(deps, notification({ type: 'open', userAgent: 'Mail/1' }, AT), true);
    expect(emitted).toHaveLength(2);
    expect(delivered()).toHaveLength(1);
  });

  it('click: the target link and user agent; two clicks are two events', async () => {
    const { deps, delivered } = fakes();
    const link = 'https://shop.example/p/1?utm=mail';
    await handle(deps, notification({ type: 'click', userAgent: 'UA', link }, AT));
    await handle(deps, notification({ type: 'click', userAgent: 'UA', link }, AT));
    await handle(deps, notification({ type: 'click', userAgent: 'UA', link }, AT + 5_000));
    expect(delivered().map((e) => e.body)).toEqual([
      {
        eventType: 'click',
        eventData: {
          msg_from: 'news@shop.example',
          rcpt_to: 'ada@example.com',
          target_link_url: link,
          transmission_id: 'tx_batch1',
          user_agent: 'UA',
          timestamp,
        },
      },
      expect.objectContaining({ eventType: 'click' }),
    ]);
  });

  it('complaint: list_unsubscribe, suppression for the store, and the contact unsubscribed', async () => {
    const contact: Customer = {
      storeId: SENT.storeId,
      id: 'ct_1',
      originId: 'c-1',
      email: 'Ada@Example.com',
      emailConsent: { state: 'subscribed', updatedAt: 1 },
      platformTags: [],
      categoryTags: [],
      attributes: {},
      createdAt: 1,
      updatedAt: 1,
      revision: 1,
    };
    const { deps, delivered, suppressed, byKey } = fakes([SENT], [contact]);
    await handle(deps, notification({ type: 'complaint' }));
    expect(byKey.get(`${SENT.storeId}#c-1`)?.emailConsent?.state).toBe('unsubscribed');
    expect(delivered().map((e) => [e.topic, e.body.eventType ?? 'customer'])).toEqual([
      ['customer/marketing', 'customer'],
      ['transmission/callback', 'list_unsubscribe'],
    ]);
    expect(delivered()[1]?.body).toEqual({
      eventType: 'list_unsubscribe',
      eventData: { rcpt_to: 'ada@example.com', transmission_id: 'tx_batch1' },
    });
    expect(suppressed.map((s) => s.reason)).toEqual(['complaint']);
  });
});

describe("the recipient's record of the email (the console's contact timeline)", () => {
  it('notes delivery, the first open, each click with its link, a bounce with its reason and a complaint', async () => {
    const { deps, notes } = fakes();
    const link = 'https://shop.example/p/1';
    await handle(deps, notification({ type: 'delivery' }, AT));
    await handle(deps, notification({ type: 'open', userAgent: 'UA' }, AT + 1_000));
    await handle(deps, notification({ type: 'open', userAgent: 'UA' }, AT + 2_000));
    await handle(deps, notification({ type: 'click', userAgent: 'UA', link }, AT + 3_000));
    await handle(
      deps,
      notification({ type: 'bounce', bounceType: 'Transient', diagnostic: 'smtp; 452 full' }, AT + 4_000),
    );
    await handle(deps, notification({ type: 'complaint' }, AT + 5_000));
    expect(notes.map(({ outcome, at, detail }) => [outcome, at - AT, detail])).toEqual([
      ['delivered', 0, undefined],
      // A later open is not the first: nothing more to note.
      ['opened', 1_000, undefined],
      ['clicked', 3_000, link],
      ['bounced', 4_000, 'Transient (MailboxFull): smtp; 452 full'],
      ['complained', 5_000, undefined],
    ]);
    // Addressed by the sent-message record: its store, recipient, send time and message id.
    expect(new Set(notes.map((n) => `${n.messageId} ${n.rcptTo} ${n.sentAt}`))).toEqual(
      new Set([`${SENT.messageId} ${SENT.rcptTo} ${SENT.sentAt}`]),
    );
  });

  it('notes nothing for an event whose sent-message record is not there (its send time is unknown)', async () => {
    const { deps, notes, emitted } = fakes([]);
    await handle(deps, notification({ type: 'delivery' }));
    expect(emitted).toHaveLength(1);
    expect(notes).toEqual([]);
  });
});

describe('finding the message', () => {
  it('falls back to the tags SES echoes when the sent-message record is not there (yet)', async () => {
    const { deps, emitted } = fakes([]);
    await handle(deps, notification({ type: 'delivery' }));
    expect(emitted[0]).toMatchObject({
      storeId: SENT.storeId,
      body: { eventData: { rcpt_to: 'ada@example.com', msg_from: 'news@shop.example', transmission_id: 'tx_batch1' } },
    });
  });

  it('refuses as permanent an event for a message that is not the service’s', async () => {
    const { deps } = fakes([]);
    const foreign = { ...mail, tags: {} };
    await expect(handle(deps, notification({ type: 'delivery' }, AT, foreign))).rejects.toThrow(PermanentError);
  });

  it("counts a public sign-up's confirmation email against no store: its bounce or complaint is acknowledged, nothing more", async () => {
    const { deps, emitted, suppressed, counted, notes } = fakes([]);
    const confirmation = { ...mail, tags: { 'storeflow-kind': 'sign_up_confirmation' } };
    for (const event of [
      { type: 'bounce', bounceType: 'Permanent', diagnostic: 'smtp; 550 5.1.1 no such user' },
      { type: 'complaint' },
      { type: 'delivery' },
    ] as Simulated[]) {
      const outcome = await handle(deps, notification(event, AT, confirmation));
      expect(outcome.skipped).toMatch(/confirmation email/);
    }
    expect({ emitted, suppressed, counted, notes }).toEqual({ emitted: [], suppressed: [], counted: [], notes: [] });
  });

  it('acknowledges Send and DeliveryDelay without a callback', async () => {
    const { deps, emitted } = fakes();
    for (const eventType of ['Send', 'DeliveryDelay']) {
      const outcome = await handle(deps, JSON.stringify({ eventType, mail: { messageId: 'msg-1' } }));
      expect(outcome.skipped).toContain(eventType);
    }
    expect(emitted).toEqual([]);
  });
});
