/** The store's suppression list and the record of every message handed to SES. */

import { dynamo } from '#shared/adapters/aws-clients.ts';
import { UpdateCommand } from '#shared/adapters/dynamodb-client.ts';
import { systemClock } from '#shared/clock.ts';
import {
  CONTACT_EMAIL_RETENTION_SECONDS,
  type ContactEmail,
  type EmailOutcome,
  type SentMessage,
  SUBJECT_KEPT_CHARS,
} from '#shared/domain/email/model.ts';
import type { ContactEmails, SentMessages, Suppressions } from '#shared/domain/email/ports.ts';
import { batchGet } from './batch.ts';
import { directPuts, directReads, type ItemReader, type ItemWriter, readRecord } from './coalesced.ts';
import { itemMeta, keys } from './keys.ts';
import { queryPage } from './query.ts';
import { getItem, ignoreConditionFailure, isConditionFailure, putIfAbsent, tableName } from './table.ts';

/**
 * Sent messages are kept this long: SES events (opens and clicks especially) keep coming for weeks after a send, and
 * an event whose message record has expired can no longer be matched to its store.
 */
const SENT_MESSAGE_TTL_SECONDS = 400 * 24 * 3600;

/**
 * `reads`: when given (the flow worker gathers its batch's reads, `coalesced.ts`), a check of one address reads its
 * item through it; a list of addresses is one batch read either way.
 */
export const dynamoSuppressions = (reads?: ItemReader): Suppressions => ({
  async suppressedAmong(storeId, emails) {
    const unique = [...new Set(emails.map((email) => email.toLowerCase()))];
    if (unique.length === 0) return new Set();
    if (reads && unique.length === 1) {
      const [email] = unique as [string];
      return (await reads.get(keys.suppression(storeId, email))) ? new Set([email]) : new Set();
    }
    const items = await batchGet(
      unique.map((email) => keys.suppression(storeId, email)),
      { projection: '#email', names: { '#email': 'email' } },
    );
    return new Set(items.map((item) => String(item.email)));
  },

  async suppress(entry) {
    const email = entry.email.toLowerCase();
    // The first reason stays: a later bounce does not turn an unsubscribe into a bounce.
    await putIfAbsent({ ...keys.suppression(entry.storeId, email), ...itemMeta('suppression'), ...entry, email });
  },
});

/** The recipient's record of one email (`ContactEmail`), before any event. */
const contactEmailItem = (message: Omit<SentMessage, 'subject'>, subject: string | undefined) => {
  const email = message.rcptTo.toLowerCase();
  const record: ContactEmail = {
    messageId: message.messageId,
    storeId: message.storeId,
    email,
    kind: message.kind,
    transmissionId: message.transmissionId,
    ...(message.flowId ? { flowId: message.flowId } : {}),
    ...(message.stepId ? { stepId: message.stepId } : {}),
    ...(subject ? { subject: subject.slice(0, SUBJECT_KEPT_CHARS) } : {}),
    sentAt: message.sentAt,
  };
  return {
    ...keys.contactEmail(message.storeId, email, message.sentAt, message.messageId),
    ...itemMeta('contactEmail'),
    ...record,
    expiresAt: Math.floor(message.sentAt / 1000) + CONTACT_EMAIL_RETENTION_SECONDS,
  };
};

/**
 * Each outcome's update: first delivery, first open, failure and opt-out keep their first time; a click counts and
 * keeps the latest (a redelivered click, same time, is not counted again); a bounce keeps the latest with its reason.
 */
const NOTES: Record<EmailOutcome, { set: string; condition?: string; count?: boolean; detail?: string }> = {
  delivered: { set: 'deliveredAt = if_not_exists(deliveredAt, :at)' },
  opened: { set: 'openedAt = if_not_exists(openedAt, :at)' },
  clicked: {
    set: 'clickedAt = :at, #detail = :detail',
    condition: 'attribute_not_exists(clickedAt) OR clickedAt <> :at',
    count: true,
    detail: 'link',
  },
  bounced: { set: 'bouncedAt = :at, #detail = :detail', detail: 'bounce' },
  complained: { set: 'complainedAt = if_not_exists(complainedAt, :at)' },
  unsubscribed: { set: 'unsubscribedAt = if_not_exists(unsubscribedAt, :at)' },
  failed: {
    set: 'failedAt = if_not_exists(failedAt, :at), #detail = if_not_exists(#detail, :detail)',
    detail: 'failure',
  },
};

export const dynamoContactEmails = (): ContactEmails => ({
  async note(message, outcome, at, detail) {
    const note = NOTES[outcome];
    await dynamo()
      .send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.contactEmail(message.storeId, message.rcptTo, message.sentAt, message.messageId),
          UpdateExpression: `SET ${note.set}${note.count ? ' ADD clicks :one' : ''}`,
          // Only an email recorded at its send: an event creates no record of its own.
          ConditionExpression: `attribute_exists(pk)${note.condition ? ` AND (${note.condition})` : ''}`,
          ExpressionAttributeValues: {
            ':at': at,
            ...(note.detail ? { ':detail': (detail ?? '').slice(0, SUBJECT_KEPT_CHARS) } : {}),
            ...(note.count ? { ':one': 1 } : {}),
          },
          ...(note.detail ? { ExpressionAttributeNames: { '#detail': note.detail } } : {}),
        }),
      )
      .catch(ignoreConditionFailure);
  },

  async noteDelivered(message, at) {
    const Key = keys.contactEmail(message.storeId, message.rcptTo, message.sentAt, message.messageId);
    try {
      await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key,
          // The first delivery's time, and that its count is added by this handling (`deliveredCounted`).
          UpdateExpression: 'SET deliveredAt = :at, deliveredCounted = :yes',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deliveredAt)',
          ExpressionAttributeValues: { ':at': at, ':yes': true },
        }),
      );
      return 'first';
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    // Refused (a redelivery, or no record): read which. A delivery noted without the mark was counted by its once-key.
    const item = await getItem(Key);
    return item?.deliveredCounted === true ? 'counted' : 'unknown';
  },

  async latest(storeId, email, limit) {
    const page = await queryPage<ContactEmail & { deliveredCounted?: boolean }>({
      partition: keys.contactEmails(storeId, email).pk,
      page: { limit },
    });
    // `deliveredCounted` only says who counted the delivery (`noteDelivered`): not part of the record.
    return page.items.map(({ deliveredCounted, ...record }) => record);
  },
});

/**
 * `puts`: where the records of a send are written (the flow worker gathers its batch's, `coalesced.ts`); `reads`:
 * where `get` reads (the email-events worker gathers its batch's).
 */
export const dynamoSentMessages = (puts: ItemWriter = directPuts, reads: ItemReader = directReads): SentMessages => ({
  async record(messages) {
    // A message id is unique, so a redelivered record rewrites the same items with the same content (a contact's
    // email record rewritten after its first events would lose them; SES reports seconds later, the record is
    // rewritten only by a retry right after the send).
    await puts.put(
      messages.flatMap(({ subject, ...message }) => [
        {
          ...keys.sentMessage(message.messageId),
          ...itemMeta('sentMessage'),
          ...message,
          expiresAt: Math.floor(message.sentAt / 1000) + SENT_MESSAGE_TTL_SECONDS,
        },
        contactEmailItem(message, subject),
      ]),
    );
  },

  async get(messageId) {
    const item = await readRecord<SentMessage & { openedAt?: number }>(reads, keys.sentMessage(messageId));
    if (!item) return undefined;
    const { openedAt, ...message } = item;
    return message;
  },

  async firstOpen(messageId) {
    try {
      await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.sentMessage(messageId),
          UpdateExpression: 'SET openedAt = :now',
          // Only a known message, and only once: an unknown id creates nothing and counts as no first open.
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(openedAt)',
          ExpressionAttributeValues: { ':now': systemClock.now() },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  },
});
