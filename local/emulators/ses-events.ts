/**
 * The local stand-in for SES event publishing. Locally nothing delivers, bounces or opens a mail, so the runtime makes
 * the events itself, in the very format a deployment's email-events queue receives (an SES event inside an SNS
 * notification envelope), and sends them to the same queue the deployed worker consumes:
 *
 * - every mail the local SES accepts yields a `Delivery` event (`deliverySimulator`, on the SES proxy's `onSent`);
 * - `POST /_local/email-events` simulates a bounce, complaint, open, click, unsubscribe or delivery for a sent
 *   message (`emailEventSimulator`).
 */
import { randomUUID } from 'node:crypto';
import type { LocalAnswer } from '#local/local-routes.ts';
import { batchingSender } from '#shared/adapters/sqs/batching-sender.ts';
import type { SQSClient } from '#shared/adapters/sqs-client.ts';
import { EMAIL_TAGS } from '#shared/domain/email/model.ts';
import type { SentMessages } from '#shared/domain/email/ports.ts';
import type { LocalSentMail } from './ses-proxy.ts';

/** The mail an event is about, as SES describes it in every event's `mail` block. */
export interface EventMail {
  readonly messageId: string;
  readonly source: string;
  readonly destination: readonly string[];
  readonly tags: Readonly<Record<string, string>>;
  /** Epoch ms of the send. */
  readonly sentAt: number;
}

export type SimulatedEvent =
  | { readonly type: 'delivery' }
  | { readonly type: 'bounce'; readonly bounceType: 'Permanent' | 'Transient'; readonly diagnostic: string }
  | { readonly type: 'complaint' }
  | { readonly type: 'open'; readonly userAgent: string }
  | { readonly type: 'click'; readonly userAgent: string; readonly link: string }
  | { readonly type: 'unsubscribe' };

export const SIMULATED_TYPES = ['delivery', 'bounce', 'complaint', 'open', 'click', 'unsubscribe'] as const;

const LOCAL_CONFIGURATION_SET = 'storeflow-local';
const LOCAL_TOPIC_ARN = `arn:aws:sns:us-east-1:000000000000:${LOCAL_CONFIGURATION_SET}-email-events`;
const bare = (address: string) => /<([^<>]+)>\s*$/.exec(address)?.[1]?.trim() ?? address.trim();

/** SMTP enhanced status code of a diagnostic (`smtp; 550 5.1.1 …` → `5.1.1`). */
const statusOf = (diagnostic: string, fallback: string) =>
  /\b([245]\.\d{1,3}\.\d{1,3})\b/.exec(diagnostic)?.[1] ?? fallback;

/** The SES event JSON (configuration set event publishing format) of `event` about `mail`, happening at `at`. */
export const sesEventJson = (mail: EventMail, event: SimulatedEvent, at: number): Record<string, unknown> => {
  const timestamp = new Date(at).toISOString();
  const recipients = mail.destination.map(bare);
  const tags: Record<string, string[]> = {
    'ses:configuration-set': [LOCAL_CONFIGURATION_SET],
    'ses:from-domain': [bare(mail.source).split('@')[1] ?? ''],
    ...Object.fromEntries(Object.entries(mail.tags).map(([name, value]) => [name, [value]])),
  };
  const base = {
    mail: {
      timestamp: new Date(mail.sentAt).toISOString(),
      source: mail.source,
      sourceArn: `arn:aws:ses:us-east-1:000000000000:identity/${tags['ses:from-domain']?.[0] ?? ''}`,
      sendingAccountId: '000000000000',
      messageId: mail.messageId,
      destination: [...mail.destination],
      headersTruncated: false,
      tags,
    },
  };
  switch (event.type) {
    case 'delivery':
      return {
        eventType: 'Delivery',
        ...base,
        delivery: {
          timestamp,
          processingTimeMillis: Math.max(0, at - mail.sentAt),
          recipients,
          smtpResponse: '250 2.0.0 OK (local)',
          reportingMTA: 'local.storeflow',
        },
      };
    case 'bounce':
      return {
        eventType: 'Bounce',
        ...base,
        bounce: {
          bounceType: event.bounceType,
          bounceSubType: event.bounceType === 'Permanent' ? 'General' : 'MailboxFull',
          bouncedRecipients: recipients.map((emailAddress) => ({
            emailAddress,
            action: 'failed',
            status: statusOf(event.diagnostic, event.bounceType === 'Permanent' ? '5.0.0' : '4.0.0'),
            diagnosticCode: event.diagnostic,
          })),
          timestamp,
          feedbackId: `local-${randomUUID()}`,
          reportingMTA: 'dns; local.storeflow',
        },
      };
    case 'complaint':
      return {
        eventType: 'Complaint',
        ...base,
        complaint: {
          complainedRecipients: recipients.map((emailAddress) => ({ emailAddress })),
          timestamp,
          feedbackId: `local-${randomUUID()}`,
          complaintFeedbackType: 'abuse',
          userAgent: 'local-feedback-loop',
          arrivalDate: timestamp,
        },
      };
    case 'open':
      return { eventType: 'Open', ...base, open: { ipAddress: '127.0.0.1', timestamp, userAgent: event.userAgent } };
    case 'click':
      return {
        eventType: 'Click',
        ...base,
        click: { ipAddress: '127.0.0.1', timestamp, userAgent: event.userAgent, link: event.link, linkTags: {} },
      };
    case 'unsubscribe':
      return {
        eventType: 'Subscription',
        ...base,
        subscription: {
          contactList: 'local',
          timestamp,
          source: 'UnsubscribeHeader',
          newTopicPreferences: { unsubscribeAll: true, topicSubscriptionStatus: [] },
          oldTopicPreferences: { unsubscribeAll: false, topicSubscriptionStatus: [] },
        },
      };
  }
};

/** The SNS notification envelope SNS wraps an event in on its way to an SQS subscriber (raw delivery off). */
export const snsNotification = (sesEvent: Record<string, unknown>, at: number) => ({
  Type: 'Notification',
  MessageId: randomUUID(),
  TopicArn: LOCAL_TOPIC_ARN,
  Message: JSON.stringify(sesEvent),
  Timestamp: new Date(at).toISOString(),
  SignatureVersion: '1',
  Signature: 'local',
  SigningCertURL: 'http://127.0.0.1/local-sns.pem',
  UnsubscribeURL: 'http://127.0.0.1/local-sns-unsubscribe',
});

export interface EventPublisher {
  /** Queues the event (wrapped as SNS would) on the email-events queue; answers SES's `eventType`. */
  publish(mail: EventMail, event: SimulatedEvent): Promise<string>;
  /** Queues one event per mail, ten to an SQS call (a bulk chunk is 50 mails), each held back `delaySeconds`. */
  publishAll(mails: readonly EventMail[], event: SimulatedEvent, delaySeconds: number): Promise<void>;
}

export const sqsEventPublisher = (sqs: SQSClient, queueUrl: string, now: () => number = Date.now): EventPublisher => {
  const send = batchingSender(
    () => sqs,
    () => queueUrl,
  );
  const body = (mail: EventMail, event: SimulatedEvent, at: number) =>
    JSON.stringify(snsNotification(sesEventJson(mail, event, at), at));
  return {
    async publish(mail, event) {
      const at = now();
      const json = sesEventJson(mail, event, at);
      await send({ MessageBody: JSON.stringify(snsNotification(json, at)) });
      return String(json.eventType);
    },
    async publishAll(mails, event, delaySeconds) {
      const at = now();
      await Promise.all(mails.map((mail) => send({ MessageBody: body(mail, event, at), DelaySeconds: delaySeconds })));
    },
  };
};

/** SES's mailbox simulator addresses (a `+label` allowed), which the local runtime answers as SES does. */
const SIMULATOR = /^(bounce|complaint)(\+[^@]*)?@simulator\.amazonses\.com$/i;

const simulatorOutcome = (mail: LocalSentMail) => {
  const kinds = mail.to.map((to) => SIMULATOR.exec(bare(to))?.[1]?.toLowerCase());
  return kinds.includes('bounce') ? 'bounce' : kinds.includes('complaint') ? 'complaint' : 'delivery';
};

/**
 * A `Delivery` event for every mail the local SES accepted, except to SES's mailbox simulator: `bounce@…` gets a
 * permanent `Bounce` instead, `complaint@…` a `Delivery` and then a `Complaint`. Held back a second, as a real
 * delivery takes at least that, so the send worker has recorded the message when the event is handled (the worker
 * does not depend on it).
 */
export const deliverySimulator =
  (publisher: EventPublisher, now: () => number = Date.now) =>
  async (mails: LocalSentMail[]): Promise<void> => {
    const sentAt = now();
    const eventMail = (mail: LocalSentMail): EventMail => ({
      messageId: mail.messageId,
      source: mail.from,
      destination: mail.to,
      tags: mail.tags,
      sentAt,
    });
    const of = (outcome: string) => mails.filter((mail) => simulatorOutcome(mail) === outcome).map(eventMail);
    const complaints = of('complaint');
    await Promise.all([
      publisher.publishAll([...of('delivery'), ...complaints], { type: 'delivery' }, 1),
      publisher.publishAll(
        of('bounce'),
        { type: 'bounce', bounceType: 'Permanent', diagnostic: 'smtp; 550 5.1.1 user unknown (mailbox simulator)' },
        1,
      ),
      publisher.publishAll(complaints, { type: 'complaint' }, 2),
    ]);
  };

const text = (value: unknown, max = 2048): string | undefined =>
  typeof value === 'string' && value.trim() !== '' && value.length <= max ? value : undefined;

const isHttpUrl = (value: string): boolean => {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
};

const DEFAULT_USER_AGENT = 'Mozilla/5.0 (Storeflow local simulation)';
const DEFAULT_DIAGNOSTIC = {
  Permanent: 'smtp; 550 5.1.1 The email account that you tried to reach does not exist',
  Transient: 'smtp; 452 4.2.2 The email account that you tried to reach is over quota',
} as const;

/** Reads the body of `POST /_local/email-events` into an event, or says what is wrong with it. */
export const parseSimulation = (
  body: Record<string, unknown>,
): { messageId: string; event: SimulatedEvent } | { error: string } => {
  const messageId = text(body.messageId, 256);
  if (!messageId) return { error: 'messageId is required: the SES message id of a sent message' };
  const type = body.type;
  const userAgent = body.userAgent === undefined ? DEFAULT_USER_AGENT : text(body.userAgent, 1024);
  if (userAgent === undefined) return { error: 'userAgent must be a non-empty string' };
  switch (type) {
    case 'delivery':
    case 'complaint':
    case 'unsubscribe':
      return { messageId, event: { type } };
    case 'open':
      return { messageId, event: { type, userAgent } };
    case 'click': {
      const link = text(body.link);
      if (!link || !isHttpUrl(link)) return { error: 'link is required for a click: an http(s) URL' };
      return { messageId, event: { type, userAgent, link } };
    }
    case 'bounce': {
      const bounceType = body.bounceType ?? 'Permanent';
      if (bounceType !== 'Permanent' && bounceType !== 'Transient') {
        return { error: 'bounceType must be Permanent (hard) or Transient (soft)' };
      }
      const diagnostic = body.diagnostic === undefined ? DEFAULT_DIAGNOSTIC[bounceType] : text(body.diagnostic, 1024);
      if (diagnostic === undefined) return { error: 'diagnostic must be a non-empty string' };
      return { messageId, event: { type, bounceType, diagnostic } };
    }
    default:
      return { error: `type must be one of: ${SIMULATED_TYPES.join(', ')}` };
  }
};

/** `POST /_local/email-events`: queues the simulated SES event for a message the service sent. */
export const emailEventSimulator =
  (publisher: EventPublisher, sentMessages: () => SentMessages) =>
  async (body: Record<string, unknown>): Promise<LocalAnswer> => {
    const parsed = parseSimulation(body);
    if ('error' in parsed) return { status: 400, body: { message: parsed.error } };
    const sent = await sentMessages().get(parsed.messageId);
    if (!sent) return { status: 404, body: { message: `No message ${parsed.messageId} was sent by the service` } };
    const mail: EventMail = {
      messageId: sent.messageId,
      source: sent.msgFrom,
      destination: [sent.rcptTo],
      tags: {
        [EMAIL_TAGS.store]: sent.storeId,
        [EMAIL_TAGS.transmission]: sent.transmissionId,
        [EMAIL_TAGS.kind]: sent.kind,
        ...(sent.flowId ? { [EMAIL_TAGS.flow]: sent.flowId } : {}),
      },
      sentAt: sent.sentAt,
    };
    const eventType = await publisher.publish(mail, parsed.event);
    return { status: 200, body: { queued: true, messageId: sent.messageId, eventType } };
  };
