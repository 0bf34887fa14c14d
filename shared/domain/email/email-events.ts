/**
 * SES events → the spec's `transmission/callback` webhooks (`{eventType, eventData}`, spec "Email events"), and the
 * suppressions they imply. The message's store, transmission, recipient and sender come from the sent-message record
 * (the tags SES echoes back are the fallback, e.g. for an event that overtakes the record's write).
 *
 * | SES event           | callback                    | also                                                     |
 * |---------------------|-----------------------------|----------------------------------------------------------|
 * | Delivery            | `delivery`                  |                                                          |
 * | Bounce (Permanent)  | `bounce`                    | address suppressed for the store (`hard_bounce`)         |
 * | Bounce (other)      | `bounce`                    | nothing: a soft bounce may clear                          |
 * | Reject, Rendering   | `bounce` (SES's reason)     | nothing: the address is not at fault                      |
 * | Open                | `initial_open`, first only  |                                                          |
 * | Click               | `click`                     |                                                          |
 * | Complaint           | `list_unsubscribe`          | suppressed (`complaint`), consent unsubscribed            |
 * | Subscription (out)  | `list_unsubscribe`          | suppressed (`unsubscribed`), consent unsubscribed         |
 * | Send, DeliveryDelay | none                        |                                                          |
 *
 * Every callback has a deterministic event id built from the SES message id and the event's own time, so an event
 * SES or SQS delivers twice is emitted once. Each event but Send and DeliveryDelay is also noted on the recipient's
 * record of the email (`ContactEmails`: the console's contact timeline).
 */
import { createHash } from 'node:crypto';
import { emailClicked, emailEventClaimed, emailEventCounted } from '#shared/domain/attribution/attribute.ts';
import type { Touch } from '#shared/domain/attribution/model.ts';
import type { AttributionStore } from '#shared/domain/attribution/ports.ts';
import type { Clock } from '#shared/domain/clock.ts';
import type { WebhookEvents } from '#shared/domain/webhooks/ports.ts';
import { PermanentError } from '#shared/errors.ts';
import type { EmailOutcome } from './model.ts';
import { EMAIL_TAGS, SIGN_UP_CONFIRMATION_KIND } from './model.ts';
import { sendDay } from './pacing.ts';
import type { ContactEmails, SentMessages, Suppressions } from './ports.ts';
import type { StoreReputation } from './reputation.ts';
import { bareAddress, type SesEvent, type SesMail } from './ses-event.ts';
import { type UnsubscribeDeps, unsubscribe } from './unsubscribe.ts';

export interface EmailEventDeps extends UnsubscribeDeps {
  readonly sentMessages: SentMessages;
  readonly attribution: AttributionStore;
  readonly suppressions: Suppressions;
  readonly webhooks: WebhookEvents;
  /** Deliveries, permanent bounces and complaints per store and day, for the sending guard (`reputation.ts`). */
  readonly reputation: Pick<StoreReputation, 'count'>;
  /** The recipient's record of the email, for the console's contact timeline. */
  readonly contactEmails: Pick<ContactEmails, 'note' | 'noteDelivered'>;
  readonly clock: Clock;
}

/** The spec's `eventType` values. */
export type CallbackType = 'delivery' | 'bounce' | 'initial_open' | 'click' | 'list_unsubscribe';

export interface EmailEventOutcome {
  readonly storeId?: string;
  readonly transmissionId?: string;
  readonly emitted?: CallbackType;
  readonly suppressed?: 'hard_bounce' | 'complaint' | 'unsubscribed';
  /** Why nothing was emitted, when nothing was. */
  readonly skipped?: string;
  /** Opens, clicks and opt-outs: the recipient and when (epoch ms), whose segments may change. */
  readonly engaged?: { readonly email: string; readonly at: number; readonly messageId: string };
}

/** Who a message was for and from, and which store and transmission it belongs to. */
interface Origin {
  readonly storeId: string;
  readonly transmissionId: string;
  readonly rcptTo: string;
  readonly msgFrom: string;
  /** What sent it (attribution): a bulk batch, or a flow run's step. */
  readonly kind?: string;
  readonly flowId?: string;
  readonly stepId?: string;
  readonly campaignId?: string;
  /** When it was sent (known from the sent-message record only): addresses the recipient's record of it. */
  readonly sentAt?: number;
}

const originOf = async (deps: EmailEventDeps, mail: SesMail): Promise<Origin | undefined> => {
  const sent = await deps.sentMessages.get(mail.messageId);
  if (sent) {
    return {
      storeId: sent.storeId,
      transmissionId: sent.transmissionId,
      rcptTo: sent.rcptTo.toLowerCase(),
      msgFrom: sent.msgFrom,
      kind: sent.kind,
      ...(sent.flowId ? { flowId: sent.flowId } : {}),
      ...(sent.stepId ? { stepId: sent.stepId } : {}),
      ...(sent.campaignId ? { campaignId: sent.campaignId } : {}),
      sentAt: sent.sentAt,
    };
  }
  const storeId = mail.tags[EMAIL_TAGS.store]?.[0];
  const transmissionId = mail.tags[EMAIL_TAGS.transmission]?.[0];
  const rcpt = mail.destination[0];
  if (!storeId || !transmissionId || !rcpt) return undefined;
  const kind = mail.tags[EMAIL_TAGS.kind]?.[0];
  const flowId = mail.tags[EMAIL_TAGS.flow]?.[0];
  const campaignId = mail.tags[EMAIL_TAGS.campaign]?.[0];
  return {
    storeId,
    transmissionId,
    rcptTo: bareAddress(rcpt),
    msgFrom: bareAddress(mail.source),
    ...(kind ? { kind } : {}),
    ...(flowId ? { flowId } : {}),
    ...(campaignId ? { campaignId } : {}),
  };
};

/** The email an event is about, for attribution: its flow step, or its bulk batch. */
const touchOf = (origin: Origin, at: number): Touch =>
  origin.kind === 'flow' && origin.flowId
    ? { kind: 'flow', flowId: origin.flowId, stepId: origin.stepId ?? 'unknown', runId: origin.transmissionId, at }
    : {
        kind: 'bulk',
        batchId: origin.transmissionId,
        ...(origin.campaignId ? { campaignId: origin.campaignId } : {}),
        at,
      };

const shortHash = (value: string) => createHash('sha256').update(value).digest('base64url').slice(0, 16);

/**
 * Handles one SES event. `redelivered` (the queue message was received before) lets a first open whose webhook may
 * have been lost by a crashed attempt be emitted again: the callback's fixed id still makes it one webhook at most.
 */
export const handleSesEvent = async (
  deps: EmailEventDeps,
  event: SesEvent,
  options: { redelivered: boolean },
): Promise<EmailEventOutcome> => {
  if (event.type === 'ignored') return { skipped: `SES ${event.eventType} events are not reported` };
  if (event.mail.tags[EMAIL_TAGS.kind]?.[0] === SIGN_UP_CONFIRMATION_KIND) {
    return { skipped: "a public sign-up's confirmation email: counted against no store" };
  }
  const origin = await originOf(deps, event.mail);
  if (!origin) {
    throw new PermanentError(
      `SES message ${event.mail.messageId} is not one of the service's: no sent-message record and no store tags`,
    );
  }
  const { storeId, transmissionId, rcptTo, msgFrom } = origin;
  const { messageId } = event.mail;
  const timestamp = String(Math.floor((event.at || deps.clock.now()) / 1000));
  const eventIdOf = (kind: string, extra = '') => `email#${messageId}#${kind}#${event.at}${extra}`;
  const emit = async (eventType: CallbackType, eventData: Record<string, unknown>, eventId: string) => {
    await deps.webhooks.emit(storeId, 'transmission/callback', { eventType, eventData }, eventId);
  };
  const bounce = async (reason: string, errorCode: string, kind: string) => {
    await emit(
      'bounce',
      { reason, msg_from: msgFrom, rcpt_to: rcptTo, error_code: errorCode, transmission_id: transmissionId, timestamp },
      eventIdOf(kind),
    );
  };
  const done = { storeId, transmissionId };
  const engaged = { email: rcptTo, at: event.at || deps.clock.now(), messageId };
  /** Counted for the email's flow, step or batch (docs/attribution.md), once per SES event. */
  const counted = (counter: Parameters<typeof emailEventCounted>[3], eventId: string) =>
    emailEventCounted(deps.attribution, storeId, touchOf(origin, event.at || deps.clock.now()), counter, eventId);

  const day = sendDay(event.at || deps.clock.now());
  /** On the recipient's record of the email (none for an event that overtook the sent-message record). */
  const note = async (outcome: EmailOutcome, detail?: string) => {
    if (origin.sentAt === undefined) return;
    await deps.contactEmails.note(
      { storeId, rcptTo, sentAt: origin.sentAt, messageId },
      outcome,
      event.at || deps.clock.now(),
      detail,
    );
  };
  switch (event.type) {
    case 'delivery': {
      // Noted on the email's record in the same write that makes this handling the one to count it; an
      // email without a record, or whose delivery was noted before that write existed, counts by its once-key.
      const noted =
        origin.sentAt === undefined
          ? 'unknown'
          : await deps.contactEmails.noteDelivered(
              { storeId, rcptTo, sentAt: origin.sentAt, messageId },
              event.at || deps.clock.now(),
            );
      await deps.reputation.count(storeId, day, 'delivered');
      if (noted === 'first') {
        await emailEventClaimed(deps.attribution, storeId, touchOf(origin, event.at || deps.clock.now()), 'delivered');
      } else if (noted === 'unknown') {
        await counted('delivered', eventIdOf('delivery'));
      }
      await emit(
        'delivery',
        {
          reason: null,
          msg_from: msgFrom,
          rcpt_to: rcptTo,
          error_code: null,
          transmission_id: transmissionId,
          timestamp,
        },
        eventIdOf('delivery'),
      );
      return { ...done, emitted: 'delivery' };
    }

    case 'bounce': {
      const recipient = event.recipients.find((r) => r.email.toLowerCase() === rcptTo) ?? event.recipients[0];
      const kind = event.bounceSubType ? `${event.bounceType} (${event.bounceSubType})` : event.bounceType;
      await note('bounced', `${kind}: ${recipient?.diagnosticCode ?? 'no diagnostic given'}`);
      await bounce(
        recipient?.diagnosticCode ?? `${kind} bounce`,
        recipient?.status ?? (event.bounceSubType || event.bounceType),
        'bounce',
      );
      await counted('bounced', eventIdOf('bounce'));
      // Only a permanent bounce says the address itself is bad; a soft one (mailbox full, greylisting) may clear.
      if (event.bounceType !== 'Permanent') return { ...done, emitted: 'bounce' };
      await deps.reputation.count(storeId, day, 'bounced');
      await deps.suppressions.suppress({
        storeId,
        email: rcptTo,
        reason: 'hard_bounce',
        at: deps.clock.now(),
        transmissionId,
      });
      return { ...done, emitted: 'bounce', suppressed: 'hard_bounce' };
    }

    case 'reject':
      await note('failed', `rejected by SES: ${event.reason || 'no reason given'}`);
      await bounce(`Rejected by SES before sending: ${event.reason || 'no reason given'}`, 'ses_reject', 'reject');
      return { ...done, emitted: 'bounce' };

    case 'rendering_failure':
      await note('failed', `not rendered: ${event.errorMessage || 'no detail given'}`);
      await bounce(
        `The message could not be rendered: ${event.errorMessage || 'no detail given'}`,
        'ses_rendering',
        'render',
      );
      return { ...done, emitted: 'bounce' };

    case 'open': {
      const first = await deps.sentMessages.firstOpen(messageId);
      if (!first && !options.redelivered) return { ...done, skipped: 'not the first open' };
      await note('opened');
      await counted('opened', `email#${messageId}#initial_open`);
      await emit(
        'initial_open',
        { msg_from: msgFrom, rcpt_to: rcptTo, transmission_id: transmissionId, user_agent: event.userAgent, timestamp },
        `email#${messageId}#initial_open`,
      );
      return { ...done, emitted: 'initial_open', engaged };
    }

    case 'click':
      await note('clicked', event.link);
      // The contact's last click (an order within the store's window is influenced by it) and the click count.
      await emailClicked(
        deps.attribution,
        storeId,
        rcptTo,
        touchOf(origin, event.at || deps.clock.now()),
        eventIdOf('click', `#${shortHash(event.link)}`),
        deps.clock.now(),
      );
      await emit(
        'click',
        {
          msg_from: msgFrom,
          rcpt_to: rcptTo,
          target_link_url: event.link,
          transmission_id: transmissionId,
          user_agent: event.userAgent,
          timestamp,
        },
        eventIdOf('click', `#${shortHash(event.link)}`),
      );
      return { ...done, emitted: 'click', engaged };

    case 'complaint':
    case 'subscription': {
      if (event.type === 'subscription' && !event.unsubscribed) return { ...done, skipped: 'not an opt-out' };
      const reason = event.type === 'complaint' ? 'complaint' : 'unsubscribed';
      await note(event.type === 'complaint' ? 'complained' : 'unsubscribed');
      if (event.type === 'complaint') await deps.reputation.count(storeId, day, 'complained');
      await counted('unsubscribed', `email#${messageId}#unsubscribed`);
      await unsubscribe(deps, { storeId, email: rcptTo, transmissionId, reason });
      return { ...done, emitted: 'list_unsubscribe', suppressed: reason, engaged };
    }
  }
};
