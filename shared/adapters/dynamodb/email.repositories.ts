/** The store's suppression list and the record of every message handed to SES. */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '#shared/adapters/aws-clients.ts';
import type { SentMessage } from '#shared/domain/email/model.ts';
import type { SentMessages, Suppressions } from '#shared/domain/email/ports.ts';
import { batchGet, batchPut } from './batch.ts';
import { itemMeta, keys } from './keys.ts';
import { getRecord, isConditionFailure, putIfAbsent, tableName } from './table.ts';

/**
 * Sent messages are kept this long: SES events (opens and clicks especially) keep coming for weeks after a send, and
 * an event whose message record has expired can no longer be matched to its store.
 */
const SENT_MESSAGE_TTL_SECONDS = 400 * 24 * 3600;

export const dynamoSuppressions = (): Suppressions => ({
  async suppressedAmong(storeId, emails) {
    const unique = [...new Set(emails.map((email) => email.toLowerCase()))];
    if (unique.length === 0) return new Set();
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

export const dynamoSentMessages = (): SentMessages => ({
  async record(messages) {
    // A message id is unique, so a redelivered record rewrites the same item with the same content.
    await batchPut(
      messages.map((message) => ({
        ...keys.sentMessage(message.messageId),
        ...itemMeta('sentMessage'),
        ...message,
        expiresAt: Math.floor(message.sentAt / 1000) + SENT_MESSAGE_TTL_SECONDS,
      })),
    );
  },

  async get(messageId) {
    const item = await getRecord<SentMessage & { openedAt?: number }>(keys.sentMessage(messageId));
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
          ExpressionAttributeValues: { ':now': Date.now() },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  },
});
