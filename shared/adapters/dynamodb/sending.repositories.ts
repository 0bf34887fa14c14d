/**
 * Sending domains and bulk batches in the table. No transactions are needed: each step is one conditional write that a
 * retry can repeat.
 *
 * - A domain belongs to one store through its owner item (`keys.senderDomain`), claimed with a conditional put before
 *   the store's own record is written.
 * - A batch is its recipients, packed one item per planned chunk (`send-recipient-packs.ts`; batches stored before
 *   that have one item per recipient, still read and written back as such), and the batch item, written last. A
 *   chunk's progress is its lease item
 *   (`keys.sendChunk`); its completion is recorded on the batch item itself: the chunk's number joins the set
 *   `doneChunks` in the same conditional update that adds its counts, so the counts are added once whatever the retries.
 */

import { randomUUID } from 'node:crypto';
import { dynamo } from '#shared/adapters/aws-clients.ts';
import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand } from '#shared/adapters/dynamodb-client.ts';
import type { SendBatch, SendRecipient } from '#shared/domain/email/bulk-model.ts';
import type { ChunkClaim, SendBatchList, SendBatchRepository, SenderRepository } from '#shared/domain/email/ports.ts';
import { parentDomains, type Sender } from '#shared/domain/email/sender.ts';
import { batchDelete, batchPut } from './batch.ts';
import { directPuts, directReads, type ItemReader, readRecord } from './coalesced.ts';
import { itemMeta, keys, withoutMeta } from './keys.ts';
import { queryAll, queryItems, queryPage } from './query.ts';
import { allPacks, packItem, packRecipients, packsCovering, recipientsIn } from './send-recipient-packs.ts';
import { getItem, ignoreConditionFailure, isConditionFailure, tableName } from './table.ts';

/** Batches and their recipients are kept for a year (the email events of a send refer to them). */
const BATCH_TTL_SECONDS = 365 * 24 * 3600;

const parentsOf = (domain: string) => parentDomains(domain);

/** `reads`: where `get` reads (the flow worker gathers its batch's reads, `coalesced.ts`). */
export const dynamoSenders = (reads: ItemReader = directReads): SenderRepository => ({
  async claim(sender, lapsedBefore) {
    let previous: Record<string, unknown> | undefined;
    try {
      const answer = await dynamo().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...keys.senderDomain(sender.domain),
            ...itemMeta('senderDomain'),
            domain: sender.domain,
            storeId: sender.storeId,
            claimedAt: sender.createdAt,
          },
          // Free, ours, or another store's claim that was never verified and has lapsed.
          ConditionExpression:
            'attribute_not_exists(pk) OR storeId = :me OR (attribute_not_exists(verified) AND (attribute_not_exists(claimedAt) OR claimedAt < :lapsed))',
          ExpressionAttributeValues: { ':me': sender.storeId, ':lapsed': lapsedBefore },
          ReturnValues: 'ALL_OLD',
        }),
      );
      previous = answer.Attributes;
    } catch (error) {
      if (isConditionFailure(error)) return { claimed: false };
      throw error;
    }
    const lapsedFrom =
      typeof previous?.storeId === 'string' && previous.storeId !== sender.storeId ? previous.storeId : undefined;
    if (lapsedFrom) {
      await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: keys.sender(lapsedFrom, sender.domain) }));
      await batchDelete(
        parentsOf(sender.domain).map((parent) => keys.senderSubdomain(parent, lapsedFrom, sender.domain)),
      );
    }
    await batchPut(
      parentsOf(sender.domain).map((parent) => ({
        ...keys.senderSubdomain(parent, sender.storeId, sender.domain),
        ...itemMeta('senderSubdomain'),
        storeId: sender.storeId,
        domain: sender.domain,
      })),
    );
    await dynamoSenders().put(sender);
    return lapsedFrom ? { claimed: true, lapsedFrom } : { claimed: true };
  },

  async markVerified(storeId, domain) {
    await dynamo()
      .send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.senderDomain(domain),
          UpdateExpression: 'SET verified = :yes',
          ConditionExpression: 'storeId = :me',
          ExpressionAttributeValues: { ':yes': true, ':me': storeId },
        }),
      )
      .catch(ignoreConditionFailure);
  },

  async heldNearby(storeId, domain, parents) {
    for (const parent of parents) {
      const owner = await getItem(keys.senderDomain(parent));
      if (typeof owner?.storeId === 'string' && owner.storeId !== storeId) return parent;
    }
    const below = await dynamo().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.senderSubdomain(domain, '', '').pk },
        ProjectionExpression: 'storeId, #domain',
        ExpressionAttributeNames: { '#domain': 'domain' },
        ConsistentRead: true,
      }),
    );
    const other = (below.Items ?? []).find((item) => item.storeId !== storeId);
    return typeof other?.domain === 'string' ? other.domain : undefined;
  },

  get: (storeId, domain) => readRecord<Sender>(reads, keys.sender(storeId, domain)),

  list: (storeId) => queryAll<Sender>(keys.senders(storeId).pk),

  async put(sender) {
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keys.sender(sender.storeId, sender.domain), ...itemMeta('sender'), ...sender },
      }),
    );
  },

  async release(storeId, domain) {
    await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: keys.sender(storeId, domain) }));
    await batchDelete(parentsOf(domain).map((parent) => keys.senderSubdomain(parent, storeId, domain)));
    // Last, and only if this store holds it: a crash before this leaves the domain with this store, which may retry.
    await dynamo()
      .send(
        new DeleteCommand({
          TableName: tableName(),
          Key: keys.senderDomain(domain),
          ConditionExpression: 'storeId = :me',
          ExpressionAttributeValues: { ':me': storeId },
        }),
      )
      .catch(ignoreConditionFailure);
  },
});

/**
 * The batch item. A batch whose recipients are packed keeps its chunk plan as `chunkPlan`, not `chunks`: code from
 * before packs (still running for a moment during a deploy, or after a rollback) finds no `chunks` on it and fails
 * with a passing error (its queue retries it, 10 to 80 s apart) instead of finding no recipient items and marking the
 * chunks done unsent. Batches stored before packs have `chunks`.
 */
type BatchItem = Omit<SendBatch, 'chunks'> & {
  chunks?: SendBatch['chunks'];
  chunkPlan?: SendBatch['chunks'];
  doneChunks?: Set<number>;
};

const batchOf = ({ doneChunks: _done, chunkPlan, chunks, ...batch }: BatchItem): SendBatch => ({
  ...batch,
  chunks: chunkPlan ?? chunks ?? [],
});

const STATUS = { '#status': 'status' };

/** Every recipient item of a query on one batch's partition (batches stored one item per recipient). */
const queryBatch = (input: { pk: string; condition: string; values: Record<string, unknown>; filter?: string }) =>
  queryItems<SendRecipient>({
    KeyConditionExpression: `pk = :pk AND ${input.condition}`,
    ...(input.filter ? { FilterExpression: input.filter, ExpressionAttributeNames: STATUS } : {}),
    ExpressionAttributeValues: { ':pk': input.pk, ...input.values },
    ConsistentRead: true,
  });

/** A recipient's own item (batches stored before packs: their recipients are written back as they were read). */
const recipientItem = (storeId: string, batchId: string, recipient: SendRecipient, expiresAt: number) => ({
  ...keys.sendRecipient(storeId, batchId, recipient.index),
  ...itemMeta('sendRecipient'),
  ...recipient,
  expiresAt,
});

const expiryOf = (createdAt: number) => Math.floor(createdAt / 1000) + BATCH_TTL_SECONDS;

export const dynamoSendBatches = (clock: { now(): number }): SendBatchRepository => {
  /** The batch's expiry, remembered from reads so recipients written back keep it. */
  const expiries = new Map<string, number>();

  return {
    async create(batch, recipients) {
      const expiresAt = expiryOf(batch.createdAt);
      const { chunks, ...storedBatch } = batch;
      await batchPut(
        packRecipients(recipients, batch.chunks).map((pack) => packItem(batch.storeId, batch.id, pack, expiresAt)),
      );
      // Conditional: a second create of the same id (two attempts of a campaign's page at once) keeps the first
      // batch, whose chunks may already be done; overwriting it would reset them and send them again.
      await dynamo()
        .send(
          new PutCommand({
            TableName: tableName(),
            Item: {
              ...keys.sendBatch(batch.storeId, batch.id),
              ...keys.sendBatchByStore(batch.storeId, batch.createdAt, batch.id),
              ...itemMeta('sendBatch'),
              ...storedBatch,
              chunkPlan: chunks,
              expiresAt,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        )
        .catch(ignoreConditionFailure);
    },

    async get(storeId, batchId) {
      const item = await getItem(keys.sendBatch(storeId, batchId));
      if (!item) return undefined;
      if (typeof item.expiresAt === 'number') expiries.set(`${storeId}#${batchId}`, item.expiresAt);
      return batchOf(withoutMeta<BatchItem>(item));
    },

    async recipientsBetween(storeId, batchId, first, last) {
      const packs = await packsCovering(storeId, batchId, first, last);
      if (packs.length > 0) return recipientsIn(packs, first, last);
      return queryBatch({
        pk: keys.sendRecipients(storeId, batchId).pk,
        condition: 'sk BETWEEN :first AND :last',
        values: {
          ':first': keys.sendRecipient(storeId, batchId, first).sk,
          ':last': keys.sendRecipient(storeId, batchId, last).sk,
        },
      });
    },

    async problems(storeId, batchId) {
      const packs = await allPacks(storeId, batchId);
      if (packs.length > 0) {
        return packs.flatMap((pack) => pack.recipients.filter((r) => r.status === 'rejected' || r.status === 'failed'));
      }
      return queryBatch({
        pk: keys.sendRecipients(storeId, batchId).pk,
        condition: 'begins_with(sk, :rcpt)',
        values: { ':rcpt': 'RCPT#', ':rejected': 'rejected', ':failed': 'failed' },
        filter: '#status IN (:rejected, :failed)',
      });
    },

    async saveRecipients(storeId, batchId, recipients) {
      if (recipients.length === 0) return;
      const indexes = recipients.map((r) => r.index);
      const packs = await packsCovering(storeId, batchId, Math.min(...indexes), Math.max(...indexes));
      if (packs.length === 0) {
        const expiresAt = expiries.get(`${storeId}#${batchId}`) ?? expiryOf(clock.now());
        await batchPut(recipients.map((r) => recipientItem(storeId, batchId, r, expiresAt)));
        return;
      }
      // Read, changed and put whole: the caller holds the lease of the chunk these packs belong to (no other writer).
      const updates = new Map(recipients.map((r) => [r.index, r]));
      const changed = packs.flatMap((pack) => {
        if (!pack.recipients.some((r) => updates.has(r.index))) return [];
        const merged = pack.recipients.map((r) => {
          const update = updates.get(r.index);
          updates.delete(r.index);
          return update ?? r;
        });
        return [packItem(storeId, batchId, merged, pack.expiresAt ?? expiryOf(clock.now()))];
      });
      if (updates.size > 0) {
        throw new Error(`send batch ${batchId} has no recipient ${[...updates.keys()].join(', ')} to write back`);
      }
      // Writes packs whole: one `PutItem` for a chunk's one pack, batches of 25 otherwise.
      await directPuts.put(changed);
    },

    async claimChunk(storeId, batchId, chunk, leaseMs): Promise<ChunkClaim> {
      const lease = randomUUID();
      const now = clock.now();
      const key = keys.sendChunk(storeId, batchId, chunk);
      let previous: Record<string, unknown> | undefined;
      try {
        await dynamo()
          .send(
            new UpdateCommand({
              TableName: tableName(),
              Key: key,
              UpdateExpression:
                'SET #status = :sending, lease = :lease, leaseUntil = :until, entity = :entity, expiresAt = :ttl',
              // AND binds tighter than OR (no grouping parentheses: docs/decisions.md, "Condition expressions").
              ConditionExpression: 'attribute_not_exists(pk) OR #status = :sending AND leaseUntil < :now',
              ExpressionAttributeNames: STATUS,
              ExpressionAttributeValues: {
                ':sending': 'sending',
                ':lease': lease,
                ':until': now + leaseMs,
                ':now': now,
                ':entity': 'sendChunk',
                ':ttl': Math.floor(now / 1000) + BATCH_TTL_SECONDS,
              },
              ReturnValues: 'ALL_OLD',
            }),
          )
          .then((answer) => {
            previous = answer.Attributes;
          });
        // A lease that ran out rather than being given back: its holder died, or kept it after SES took its emails.
        return { claimed: true, lease, ...(Number(previous?.leaseUntil) > 0 ? { retaken: true } : {}) };
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
      return { claimed: false, done: (await getItem(key))?.status === 'done' };
    },

    async releaseChunk(storeId, batchId, chunk, lease) {
      await dynamo()
        .send(
          new UpdateCommand({
            TableName: tableName(),
            Key: keys.sendChunk(storeId, batchId, chunk),
            UpdateExpression: 'SET leaseUntil = :zero',
            ConditionExpression: 'lease = :lease',
            ExpressionAttributeValues: { ':zero': 0, ':lease': lease },
          }),
        )
        .catch(ignoreConditionFailure);
    },

    async completeChunk(storeId, batchId, chunk, lease, counts) {
      try {
        await dynamo().send(
          new UpdateCommand({
            TableName: tableName(),
            Key: keys.sendBatch(storeId, batchId),
            UpdateExpression: 'ADD sent :sent, failed :failed, chunksDone :one, doneChunks :chunk',
            ConditionExpression: 'attribute_exists(pk) AND NOT contains(doneChunks, :n)',
            ExpressionAttributeValues: {
              ':sent': counts.sent,
              ':failed': counts.failed,
              ':one': 1,
              ':chunk': new Set([chunk]),
              ':n': chunk,
            },
          }),
        );
      } catch (error) {
        // Already counted by an earlier attempt that stopped before marking the chunk done.
        ignoreConditionFailure(error);
      }
      try {
        await dynamo().send(
          new UpdateCommand({
            TableName: tableName(),
            Key: keys.sendChunk(storeId, batchId, chunk),
            UpdateExpression: 'SET #status = :done REMOVE leaseUntil',
            ConditionExpression: 'lease = :lease',
            ExpressionAttributeNames: STATUS,
            ExpressionAttributeValues: { ':done': 'done', ':lease': lease },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },
  };
};

/** The store's bulk batches, newest first (the console's sending page). */
export const dynamoSendBatchList = (): SendBatchList => ({
  async listForStore(storeId, page) {
    const found = await queryPage<BatchItem>({
      index: 'gsi1',
      partition: keys.sendBatchByStore(storeId, 0, '').gsi1pk,
      page,
    });
    return {
      items: found.items.map(batchOf),
      ...(found.nextCursor ? { nextCursor: found.nextCursor } : {}),
    };
  },
});
