/**
 * SES event publishing, as the email-events queue receives it: the configuration set publishes each event to SNS, and
 * SNS delivers it to the queue inside its notification envelope (`{Type: 'Notification', Message: '<SES JSON>'}`). A
 * raw delivery (the SES JSON itself) is read too, so switching the subscription to raw delivery needs no code change.
 * Parsing is pure and strict where it matters (the message id, the event's own block) and lenient elsewhere: SES adds
 * fields over time, and an event we cannot use is a `PermanentError` (logged and acknowledged), never a retry loop.
 */
import * as v from 'valibot';
import { PermanentError } from '#shared/errors.ts';

/** What every SES event says about the message it concerns (`mail`). */
export interface SesMail {
  readonly messageId: string;
  /** The envelope sender as SES has it (may be `"Name" <address>`). */
  readonly source: string;
  readonly destination: readonly string[];
  /** SES tags: ours (see `EMAIL_TAGS`) plus SES's own (`ses:configuration-set`, …). */
  readonly tags: Readonly<Record<string, readonly string[]>>;
}

export interface BouncedRecipient {
  readonly email: string;
  /** SMTP enhanced status code, e.g. `5.1.1`. */
  readonly status?: string;
  /** The receiving server's words, e.g. `smtp; 550 5.1.1 user unknown`. */
  readonly diagnosticCode?: string;
}

interface Base {
  readonly mail: SesMail;
  /** When the event happened (epoch milliseconds): the event block's timestamp, else the send time. */
  readonly at: number;
}

export type SesEvent =
  | (Base & { readonly type: 'delivery' })
  | (Base & {
      readonly type: 'bounce';
      /** `Permanent` (hard), `Transient` (soft) or `Undetermined`. */
      readonly bounceType: string;
      readonly bounceSubType: string;
      readonly recipients: readonly BouncedRecipient[];
    })
  | (Base & { readonly type: 'complaint'; readonly recipients: readonly string[]; readonly feedbackType?: string })
  | (Base & { readonly type: 'open'; readonly userAgent: string })
  | (Base & { readonly type: 'click'; readonly userAgent: string; readonly link: string })
  /** SES list management (a contact list's unsubscribe header): `unsubscribed` when the recipient opted out. */
  | (Base & { readonly type: 'subscription'; readonly unsubscribed: boolean })
  | (Base & { readonly type: 'reject'; readonly reason: string })
  | (Base & { readonly type: 'rendering_failure'; readonly errorMessage: string })
  /** Published but not mapped (`Send`, `DeliveryDelay`): acknowledged without effect. */
  | (Base & { readonly type: 'ignored'; readonly eventType: string });

export type SesEventType = SesEvent['type'];

const str = v.string();
const optStr = v.optional(v.string());

const Mail = v.looseObject({
  messageId: v.pipe(v.string(), v.nonEmpty()),
  timestamp: optStr,
  source: v.optional(v.string(), ''),
  destination: v.optional(v.array(str), []),
  tags: v.optional(v.record(v.string(), v.array(str)), {}),
});

const Envelope = v.looseObject({
  eventType: optStr,
  /** SES identity notifications (the older feedback channel) name it so; read for robustness. */
  notificationType: optStr,
  mail: Mail,
});

const Timestamped = v.looseObject({ timestamp: optStr });
const Bounce = v.looseObject({
  bounceType: v.optional(v.string(), 'Undetermined'),
  bounceSubType: v.optional(v.string(), ''),
  bouncedRecipients: v.optional(
    v.array(v.looseObject({ emailAddress: str, status: optStr, diagnosticCode: optStr })),
    [],
  ),
  timestamp: optStr,
});
const Complaint = v.looseObject({
  complainedRecipients: v.optional(v.array(v.looseObject({ emailAddress: str })), []),
  complaintFeedbackType: optStr,
  timestamp: optStr,
});
const Open = v.looseObject({ userAgent: v.optional(v.string(), ''), timestamp: optStr });
const Click = v.looseObject({ userAgent: v.optional(v.string(), ''), link: str, timestamp: optStr });
const Subscription = v.looseObject({
  timestamp: optStr,
  newTopicPreferences: v.optional(
    v.looseObject({
      unsubscribeAll: v.optional(v.boolean()),
      topicSubscriptionStatus: v.optional(v.array(v.looseObject({ subscriptionStatus: optStr }))),
    }),
  ),
});
const Reject = v.looseObject({ reason: v.optional(v.string(), '') });
const Failure = v.looseObject({ errorMessage: v.optional(v.string(), '') });

const SnsNotification = v.looseObject({ Type: v.literal('Notification'), Message: v.string() });

const parseJson = (text: string, what: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    throw new PermanentError(`${what} is not JSON`);
  }
};

const epochMs = (iso: string | undefined): number | undefined => {
  if (!iso) return undefined;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? ms : undefined;
};

const block = <S extends v.GenericSchema>(schema: S, value: unknown, eventType: string): v.InferOutput<S> => {
  const result = v.safeParse(schema, value);
  if (!result.success) {
    const where = result.issues.map((i) => v.getDotPath(i) ?? '?').join(', ');
    throw new PermanentError(`SES ${eventType} event is malformed (${where})`);
  }
  return result.output;
};

/** The SES event of one queue message (SNS envelope or raw). Throws `PermanentError` for anything unusable. */
export const parseSesNotification = (body: string): SesEvent => {
  let payload = parseJson(body, 'The message body');
  const sns = v.safeParse(SnsNotification, payload);
  if (sns.success) payload = parseJson(sns.output.Message, 'The SNS notification Message');
  else if (payload && typeof payload === 'object' && 'Type' in payload) {
    // A subscription confirmation or any other SNS message that is not an event (SQS subscriptions confirm themselves).
    throw new PermanentError(`SNS message of type ${String((payload as { Type: unknown }).Type)} is not an SES event`);
  }
  const envelope = block(Envelope, payload, 'notification');
  const eventType = envelope.eventType ?? envelope.notificationType;
  if (!eventType) throw new PermanentError('SES notification has no eventType');
  const raw = payload as Record<string, unknown>;
  const mail: SesMail = {
    messageId: envelope.mail.messageId,
    source: envelope.mail.source,
    destination: envelope.mail.destination,
    tags: envelope.mail.tags,
  };
  const sentAt = epochMs(envelope.mail.timestamp) ?? 0;
  const base = (timestamp: string | undefined): Base => ({ mail, at: epochMs(timestamp) ?? sentAt });

  switch (eventType) {
    case 'Delivery': {
      const delivery = block(v.optional(Timestamped, {}), raw.delivery, eventType);
      return { type: 'delivery', ...base(delivery.timestamp) };
    }
    case 'Bounce': {
      const bounce = block(Bounce, raw.bounce, eventType);
      return {
        type: 'bounce',
        ...base(bounce.timestamp),
        bounceType: bounce.bounceType,
        bounceSubType: bounce.bounceSubType,
        recipients: bounce.bouncedRecipients.map((r) => ({
          email: r.emailAddress,
          ...(r.status ? { status: r.status } : {}),
          ...(r.diagnosticCode ? { diagnosticCode: r.diagnosticCode } : {}),
        })),
      };
    }
    case 'Complaint': {
      const complaint = block(Complaint, raw.complaint, eventType);
      return {
        type: 'complaint',
        ...base(complaint.timestamp),
        recipients: complaint.complainedRecipients.map((r) => r.emailAddress),
        ...(complaint.complaintFeedbackType ? { feedbackType: complaint.complaintFeedbackType } : {}),
      };
    }
    case 'Open': {
      const open = block(Open, raw.open, eventType);
      return { type: 'open', ...base(open.timestamp), userAgent: open.userAgent };
    }
    case 'Click': {
      const click = block(Click, raw.click, eventType);
      return { type: 'click', ...base(click.timestamp), userAgent: click.userAgent, link: click.link };
    }
    case 'Subscription': {
      const subscription = block(Subscription, raw.subscription, eventType);
      const preferences = subscription.newTopicPreferences;
      const unsubscribed =
        preferences?.unsubscribeAll === true ||
        (preferences?.topicSubscriptionStatus ?? []).some((t) => t.subscriptionStatus === 'OptOut');
      return { type: 'subscription', ...base(subscription.timestamp), unsubscribed };
    }
    case 'Reject': {
      const reject = block(v.optional(Reject, {}), raw.reject, eventType);
      return { type: 'reject', ...base(undefined), reason: reject.reason };
    }
    case 'Rendering Failure':
    case 'RenderingFailure': {
      const failure = block(v.optional(Failure, {}), raw.failure, eventType);
      return { type: 'rendering_failure', ...base(undefined), errorMessage: failure.errorMessage };
    }
    case 'Send':
    case 'DeliveryDelay':
      return { type: 'ignored', ...base(undefined), eventType };
    default:
      throw new PermanentError(`Unknown SES eventType ${JSON.stringify(eventType).slice(0, 60)}`);
  }
};

/** The bare address of `"Name" <address>` or `address`, lower-cased. */
export const bareAddress = (value: string): string => {
  const angle = /<([^<>]+)>\s*$/.exec(value);
  return (angle?.[1] ?? value).trim().toLowerCase();
};
