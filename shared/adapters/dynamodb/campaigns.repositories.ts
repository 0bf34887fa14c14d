/**
 * Campaigns in the table (docs/campaigns.md): the campaign item (`keys.campaign`: definition, state, walk position,
 * progress counts by atomic `ADD`), listed through `gsi1` newest first; its recipients in one partition per campaign
 * (`keys.campaignRecipient`, one conditional put each: a contact is taken once); the store's count of active
 * campaigns (`keys.activeCampaigns`); and the two reads the campaign needs of other areas (contacts by id, the send
 * path's recipient records).
 */

import { dynamo } from '#shared/adapters/aws-clients.ts';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '#shared/adapters/dynamodb-client.ts';
import type { Campaign, CampaignRecipient, CampaignState } from '#shared/domain/campaigns/model.ts';
import {
  type ActiveCampaigns,
  type CampaignRecipients,
  type CampaignRepository,
  type ContactsById,
  outcomeKey,
  type SendOutcomes,
} from '#shared/domain/campaigns/ports.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import type { SendRecipient } from '#shared/domain/email/bulk-model.ts';
import { batchGet, batchPut } from './batch.ts';
import { itemMeta, keys, withoutMeta } from './keys.ts';
import { queryPage } from './query.ts';
import { packsCovering, recipientsIn } from './send-recipient-packs.ts';
import { getRecord, ignoreConditionFailure, isConditionFailure, tableName } from './table.ts';

/**
 * A chunk's number in the campaign's set of counted chunks: page × this + chunk (a page is at most 1,000 recipients,
 * 20 chunks of 50, so numbers never collide).
 */
const CHUNKS_PER_PAGE = 1000;

/** The campaign as the domain knows it: the counted chunks stay in the table. */
const campaignOf = <T extends Campaign | undefined>(item: T): T => {
  if (!item) return item;
  const { countedChunks: _counted, ...campaign } = item as T & { countedChunks?: unknown };
  return campaign as T;
};

/** Conditional puts run this many at a time (a page of the walk claims up to 1,000 recipients). */
const CLAIM_CONCURRENCY = 50;

const update = async (input: {
  key: { pk: string; sk: string };
  expression: string;
  condition?: string;
  names?: Record<string, string>;
  values?: Record<string, unknown>;
  returnOld?: boolean;
}): Promise<Record<string, unknown> | undefined | false> => {
  try {
    const { Attributes } = await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: input.key,
        UpdateExpression: input.expression,
        ...(input.condition ? { ConditionExpression: input.condition } : {}),
        ...(input.names ? { ExpressionAttributeNames: input.names } : {}),
        ...(input.values ? { ExpressionAttributeValues: input.values } : {}),
        ...(input.returnOld ? { ReturnValues: 'ALL_OLD' } : {}),
      }),
    );
    return Attributes;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

export const dynamoCampaigns = (): CampaignRepository => ({
  async create(campaign) {
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.campaign(campaign.storeId, campaign.id),
          ...keys.campaignByStore(campaign.storeId, campaign.createdAt, campaign.id),
          ...itemMeta('campaign'),
          ...campaign,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  },

  get: async (storeId, campaignId) => campaignOf(await getRecord<Campaign>(keys.campaign(storeId, campaignId))),

  async delete(storeId, campaignId) {
    await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: keys.campaign(storeId, campaignId) }));
  },

  async list(storeId, page) {
    const found = await queryPage<Campaign>({
      index: 'gsi1',
      partition: keys.campaignByStore(storeId, 0, '').gsi1pk,
      itemPrefix: `STORE#${storeId}#CAMPAIGN#`,
      page,
    });
    return { ...found, items: found.items.map(campaignOf) };
  },

  async start(storeId, campaignId, at) {
    const done = await update({
      key: keys.campaign(storeId, campaignId),
      expression: 'SET #state = :sending, startedAt = :at',
      condition: '#state = :scheduled',
      names: { '#state': 'state' },
      values: { ':sending': 'sending', ':scheduled': 'scheduled', ':at': at },
    });
    return done !== false;
  },

  async cancel(storeId, campaignId, at) {
    const old = await update({
      key: keys.campaign(storeId, campaignId),
      expression: 'SET #state = :cancelled, cancelledAt = :at',
      condition: '#state IN (:scheduled, :sending)',
      names: { '#state': 'state' },
      values: { ':cancelled': 'cancelled', ':scheduled': 'scheduled', ':sending': 'sending', ':at': at },
      returnOld: true,
    });
    return old ? campaignOf(withoutMeta<Campaign>(old)) : undefined;
  },

  async recordPage(storeId, campaignId, page, counts, next, at) {
    const done = await update({
      key: keys.campaign(storeId, campaignId),
      expression:
        'SET walkPage = :next, walk = :walk, pageAt = :at' +
        (next ? '' : ', walkedAt = :at') +
        ' ADD progress.recipients :r, progress.queued :q, progress.skipped :s' +
        (counts.deferred ? ', progress.#deferred :d' : ''),
      condition: 'walkPage = :page AND #state = :sending',
      // `deferred` is a DynamoDB reserved word.
      names: { '#state': 'state', ...(counts.deferred ? { '#deferred': 'deferred' } : {}) },
      values: {
        ':page': page,
        ':next': page + 1,
        ':walk': next ?? { segment: -1 },
        ':sending': 'sending',
        ':r': counts.recipients,
        ':q': counts.queued,
        ':s': counts.skipped,
        ...(counts.deferred ? { ':d': counts.deferred } : {}),
        ':at': at,
      },
    });
    return done !== false;
  },

  async addOutcome(storeId, campaignId, chunk, counts) {
    const values = { ':sent': counts.sent, ':failed': counts.failed };
    if (!chunk) {
      await update({
        key: keys.campaign(storeId, campaignId),
        expression: 'ADD progress.sent :sent, progress.failed :failed',
        condition: 'attribute_exists(pk)',
        values,
      });
      return;
    }
    // The chunks counted so far are a number set on the campaign (a few bytes each: 2,000 for 100,000 recipients), so
    // the count and its once-only check are one conditional update. A repeat fails the condition and adds nothing.
    const counted = chunk.page * CHUNKS_PER_PAGE + chunk.chunk;
    await update({
      key: keys.campaign(storeId, campaignId),
      expression: 'ADD progress.sent :sent, progress.failed :failed, countedChunks :counted',
      condition: 'attribute_exists(pk) AND NOT contains(countedChunks, :chunk)',
      values: { ...values, ':counted': new Set([counted]), ':chunk': counted },
    });
  },
});

/**
 * Only the campaign's state: the send worker asks it before every chunk (is it cancelled?), and the campaign item grows
 * with its counted chunks (some 8 KB at 100,000 recipients), so the whole item is not read for it.
 */
export const dynamoCampaignState = async (storeId: string, campaignId: string): Promise<CampaignState | undefined> => {
  const { Item } = await dynamo().send(
    new GetCommand({
      TableName: tableName(),
      Key: keys.campaign(storeId, campaignId),
      ProjectionExpression: '#state',
      ConsistentRead: true,
      ExpressionAttributeNames: { '#state': 'state' },
    }),
  );
  return Item?.state as CampaignState | undefined;
};

/**
 * The store's active campaigns as a set of ids (`campaigns`) on one item: adding and removing an id can be repeated.
 * (Until November 2026 the item held a count, `active`, which a crash between a walk's end and its decrement left
 * one too high for good; the count is no longer read.)
 */
export const dynamoActiveCampaigns = (): ActiveCampaigns => ({
  async take(storeId, campaignId, cap) {
    const done = await update({
      key: keys.activeCampaigns(storeId),
      expression: 'SET entity = :entity, #schema = :schema ADD campaigns :id',
      condition: 'attribute_not_exists(campaigns) OR size(campaigns) < :cap OR contains(campaigns, :campaignId)',
      names: { '#schema': 'schema' },
      values: {
        ':id': new Set([campaignId]),
        ':campaignId': campaignId,
        ':cap': cap,
        ':entity': 'activeCampaigns',
        ':schema': 2,
      },
    });
    return done !== false;
  },
  async release(storeId, campaignId) {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.activeCampaigns(storeId),
        UpdateExpression: 'DELETE campaigns :id',
        ExpressionAttributeValues: { ':id': new Set([campaignId]) },
      }),
    );
  },
});

const recipientItem = (storeId: string, campaignId: string, recipient: CampaignRecipient) => ({
  ...keys.campaignRecipient(storeId, campaignId, recipient.customerId),
  ...itemMeta('campaignRecipient'),
  ...recipient,
});

export const dynamoCampaignRecipients = (): CampaignRecipients => ({
  async claim(storeId, campaignId, recipients, options) {
    if (options?.alone) {
      await batchPut(recipients.map((recipient) => recipientItem(storeId, campaignId, recipient)));
      return [...recipients];
    }
    const written: CampaignRecipient[] = [];
    for (let start = 0; start < recipients.length; start += CLAIM_CONCURRENCY) {
      const slice = recipients.slice(start, start + CLAIM_CONCURRENCY);
      const results = await Promise.all(
        slice.map(async (recipient) => {
          try {
            await dynamo().send(
              new PutCommand({
                TableName: tableName(),
                Item: recipientItem(storeId, campaignId, recipient),
                // Another page's contact stays its; the same page again (a retry) writes its own again.
                ConditionExpression: 'attribute_not_exists(pk) OR claimedBy = :page',
                ExpressionAttributeValues: { ':page': recipient.claimedBy },
              }),
            );
            return true;
          } catch (error) {
            ignoreConditionFailure(error);
            return false;
          }
        }),
      );
      slice.forEach((recipient, i) => {
        if (results[i]) written.push(recipient);
      });
    }
    return written;
  },

  page: (storeId, campaignId, page) =>
    queryPage<CampaignRecipient>({
      partition: keys.campaignRecipients(storeId, campaignId).pk,
      page,
      ascending: true,
    }),
});

/**
 * Per batch, the packs that cover the asked indexes (one query, `send-recipient-packs.ts`); the recipients of batches
 * stored before packs, one item each, in one batch read.
 */
export const dynamoSendOutcomes = (): SendOutcomes => ({
  async of(storeId, refs) {
    const byBatch = new Map<string, number[]>();
    for (const ref of refs) {
      const indexes = byBatch.get(ref.batchId);
      if (indexes) indexes.push(ref.index);
      else byBatch.set(ref.batchId, [ref.index]);
    }
    const found = new Map<string, SendRecipient>();
    const unpacked: { batchId: string; index: number }[] = [];
    await Promise.all(
      [...byBatch].map(async ([batchId, indexes]) => {
        const [first, last] = [Math.min(...indexes), Math.max(...indexes)];
        const packs = await packsCovering(storeId, batchId, first, last);
        if (packs.length === 0) {
          unpacked.push(...indexes.map((index) => ({ batchId, index })));
          return;
        }
        const wanted = new Set(indexes);
        for (const recipient of recipientsIn(packs, first, last)) {
          if (wanted.has(recipient.index)) found.set(outcomeKey(batchId, recipient.index), recipient);
        }
      }),
    );
    const items =
      unpacked.length > 0
        ? await batchGet(unpacked.map((ref) => keys.sendRecipient(storeId, ref.batchId, ref.index)))
        : [];
    for (const item of items) {
      const batchId = String(item.pk).slice(`STORE#${storeId}#SEND#`.length);
      const recipient = withoutMeta<SendRecipient>(item);
      found.set(outcomeKey(batchId, recipient.index), recipient);
    }
    return found;
  },
});

export const dynamoContactsById = (): ContactsById => ({
  async getMany(storeId, customerIds) {
    const items = await batchGet(customerIds.map((id) => keys.customer(storeId, id)));
    return new Map(
      items.map((item) => {
        const customer = withoutMeta<Customer>(item);
        return [customer.originId, customer] as const;
      }),
    );
  },
});
