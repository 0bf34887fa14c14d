/**
 * Segments in the table: definitions in the store's segments partition (`keys.segment`, one query lists
 * them), each segment's state item (live count by atomic `ADD`, build progress) apart from the revisioned definition,
 * members in one partition per segment (`keys.segmentMember`, paged by `Query`), and each contact's order and
 * engagement facts (`keys.contactStats`). Costs: docs/segments.md "What it costs".
 */

import { dynamo } from '#shared/adapters/aws-clients.ts';
import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand } from '#shared/adapters/dynamodb-client.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import { RevisionConflict } from '#shared/domain/repository.ts';
import type { ContactStats, OrderFact, Segment, SegmentMember, SegmentState } from '#shared/domain/segments/model.ts';
import { emptyStats, withOrder } from '#shared/domain/segments/model.ts';
import type {
  ContactStatsRepository,
  SegmentMembers,
  SegmentRepository,
  SegmentStates,
  StoreContacts,
} from '#shared/domain/segments/ports.ts';
import { batchDelete, batchGet } from './batch.ts';
import { itemMeta, keys, withoutMeta } from './keys.ts';
import { queryItems, queryPage } from './query.ts';
import { revisionedRepository } from './revisioned.ts';
import { ignoreConditionFailure, isConditionFailure, tableName } from './table.ts';

export const dynamoSegments = (): SegmentRepository => {
  const revisioned = revisionedRepository<Segment>({ entity: 'segment', key: keys.segment, idOf: (s) => s.id });
  return {
    get: (storeId, segmentId) => revisioned.get(storeId, segmentId),
    save: (segment, expectedRevision) => revisioned.save(segment, expectedRevision),
    list: (storeId) =>
      queryItems<Segment>({
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.segments(storeId).pk },
        // Consistent: a segment saved a moment ago counts for the next event.
        ConsistentRead: true,
      }),
    async delete(storeId, segmentId) {
      const { Attributes } = await dynamo().send(
        new DeleteCommand({
          TableName: tableName(),
          Key: keys.segment(storeId, segmentId),
          ReturnValues: 'ALL_OLD',
        }),
      );
      await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: keys.segmentState(storeId, segmentId) }));
      return Attributes !== undefined;
    },
  };
};

/** Changes the build of `revision`; nothing when a newer build (an edit) replaced it. */
const updateBuild = async (
  storeId: string,
  segmentId: string,
  revision: number,
  update: string,
  values: Record<string, unknown>,
): Promise<void> => {
  await dynamo()
    .send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.segmentState(storeId, segmentId),
        UpdateExpression: update,
        ConditionExpression: '#build.revision = :revision',
        ExpressionAttributeNames: { '#build': 'build', ...(update.includes('#status') ? { '#status': 'status' } : {}) },
        ExpressionAttributeValues: { ...values, ':revision': revision },
      }),
    )
    .catch(ignoreConditionFailure);
};

const stateOf = (item: Record<string, unknown>): SegmentState => ({
  members: Number(item.members ?? 0),
  build: item.build as SegmentState['build'],
});

export const dynamoSegmentStates = (): SegmentStates => ({
  async get(storeId, segmentId) {
    const found = await batchGet([keys.segmentState(storeId, segmentId)]);
    return found[0]?.build ? stateOf(found[0]) : undefined;
  },
  async getMany(storeId, segmentIds) {
    const found = await batchGet(segmentIds.map((id) => keys.segmentState(storeId, id)));
    return new Map(
      found
        .filter((item) => item.build)
        .map((item) => [String(item.pk).slice(`STORE#${storeId}#SEGMENT#`.length), stateOf(item)] as const),
    );
  },
  async startBuild(storeId, segmentId, revision, at) {
    await dynamo()
      .send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.segmentState(storeId, segmentId),
          UpdateExpression: 'SET #build = :build, entity = :entity, #schema = :schema',
          // Never step back to an older revision (two edits whose writes cross).
          ConditionExpression: 'attribute_not_exists(#build) OR #build.revision <= :revision',
          ExpressionAttributeNames: { '#build': 'build', '#schema': 'schema' },
          ExpressionAttributeValues: {
            ':build': { revision, status: 'building', scanned: 0, startedAt: at },
            ':revision': revision,
            ':entity': 'segmentState',
            ':schema': 1,
          },
        }),
      )
      .catch(ignoreConditionFailure);
  },
  progress: (storeId, segmentId, revision, scanned) =>
    updateBuild(storeId, segmentId, revision, 'ADD #build.scanned :n', { ':n': scanned }),
  carryBuild: (storeId, segmentId, from, to) =>
    updateBuild(storeId, segmentId, from, 'SET #build.revision = :to', { ':to': to }),
  finishBuild: (storeId, segmentId, revision, at) =>
    updateBuild(storeId, segmentId, revision, 'SET #build.#status = :ready, #build.finishedAt = :at', {
      ':ready': 'ready',
      ':at': at,
    }),
});

/** Moves the segment's live count; a segment deleted meanwhile (no state item) is left alone. */
const count = (storeId: string, segmentId: string, delta: number) =>
  dynamo()
    .send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.segmentState(storeId, segmentId),
        UpdateExpression: 'ADD members :delta',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':delta': delta },
      }),
    )
    .catch(ignoreConditionFailure);

const PURGE_PAGE = 500;

export const dynamoSegmentMembers = (): SegmentMembers => ({
  async memberOf(storeId, segmentIds, customerId) {
    const found = await batchGet(
      segmentIds.map((id) => keys.segmentMember(storeId, id, customerId)),
      { projection: 'pk' },
    );
    const prefix = `STORE#${storeId}#SEGMENT#`;
    return new Set(found.map((item) => String(item.pk).slice(prefix.length, -'#MEMBERS'.length)));
  },
  async membersAmong(storeId, segmentId, customerIds) {
    const found = await batchGet(
      customerIds.map((id) => keys.segmentMember(storeId, segmentId, id)),
      { projection: 'sk' },
    );
    return new Set(found.map((item) => String(item.sk)));
  },
  async enter(storeId, segmentId, member) {
    try {
      await dynamo().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...keys.segmentMember(storeId, segmentId, member.customerId),
            ...itemMeta('segmentMember'),
            ...member,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
    await count(storeId, segmentId, 1);
    return true;
  },
  async exit(storeId, segmentId, customerId) {
    const { Attributes } = await dynamo().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keys.segmentMember(storeId, segmentId, customerId),
        ReturnValues: 'ALL_OLD',
      }),
    );
    if (!Attributes) return false;
    await count(storeId, segmentId, -1);
    return true;
  },
  async page(storeId, segmentId, page) {
    const found = await queryPage<SegmentMember>({
      partition: keys.segmentMembers(storeId, segmentId).pk,
      page,
      ascending: true,
    });
    return {
      items: found.items.map((item) => ({
        customerId: item.customerId,
        ...(item.email ? { email: item.email } : {}),
        enteredAt: item.enteredAt,
      })),
      ...(found.nextCursor ? { nextCursor: found.nextCursor } : {}),
    };
  },
  async purgePage(storeId, segmentId) {
    const { Items } = await dynamo().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.segmentMembers(storeId, segmentId).pk },
        ProjectionExpression: 'pk, sk',
        Limit: PURGE_PAGE,
      }),
    );
    const doomed = (Items ?? []).map((item) => ({ pk: String(item.pk), sk: String(item.sk) }));
    await batchDelete(doomed);
    return doomed.length;
  },
});

const MAX_CONFLICT_RETRIES = 5;

export const dynamoContactStats = (): ContactStatsRepository => {
  const read = async (storeId: string, customerId: string) => {
    const [item] = await batchGet([keys.contactStats(storeId, customerId)]);
    return item ? withoutMeta<ContactStats>(item) : undefined;
  };
  return {
    get: read,
    async getMany(storeId, customerIds) {
      const found = await batchGet(customerIds.map((id) => keys.contactStats(storeId, id)));
      return new Map(found.map((item) => [String(item.customerId), withoutMeta<ContactStats>(item)] as const));
    },
    async recordOrder(storeId, customerId, orderId, fact: (firstSeen?: number) => OrderFact) {
      for (let tries = 1; ; tries++) {
        const before = (await read(storeId, customerId)) ?? emptyStats(storeId, customerId);
        const next = withOrder(before, orderId, fact(before.orders[orderId]?.at));
        if (JSON.stringify(next) === JSON.stringify(before)) return;
        try {
          await dynamo().send(
            new PutCommand({
              TableName: tableName(),
              Item: {
                ...keys.contactStats(storeId, customerId),
                ...itemMeta('contactStats'),
                ...next,
                revision: before.revision + 1,
              },
              ...(before.revision === 0
                ? { ConditionExpression: 'attribute_not_exists(pk)' }
                : {
                    ConditionExpression: 'revision = :expected',
                    ExpressionAttributeValues: { ':expected': before.revision },
                  }),
            }),
          );
          return;
        } catch (error) {
          if (!isConditionFailure(error) || tries >= MAX_CONFLICT_RETRIES) {
            throw isConditionFailure(error) ? new RevisionConflict(`contact stats ${customerId}`) : error;
          }
        }
      }
    },
    async recordEngagement(storeId, customerId, kind, at) {
      const field = kind === 'open' ? 'lastOpenAt' : 'lastClickAt';
      // One write; the revision moves so that an order write that read before it retries instead of undoing it.
      await dynamo()
        .send(
          new UpdateCommand({
            TableName: tableName(),
            Key: keys.contactStats(storeId, customerId),
            UpdateExpression:
              'SET #field = :at, storeId = :store, customerId = :customer, orders = if_not_exists(orders, :none), ' +
              'entity = :entity, #schema = :schema ADD revision :one',
            ConditionExpression: 'attribute_not_exists(#field) OR #field < :at',
            ExpressionAttributeNames: { '#field': field, '#schema': 'schema' },
            ExpressionAttributeValues: {
              ':at': at,
              ':store': storeId,
              ':customer': customerId,
              ':none': {},
              ':entity': 'contactStats',
              ':schema': 1,
              ':one': 1,
            },
          }),
        )
        .catch(ignoreConditionFailure);
    },
  };
};

/** The store's contacts in creation order: a `Query` on its contacts index partition (`keys.customerByCreation`). */
export const dynamoStoreContacts = (): StoreContacts => ({
  page: (storeId, page) =>
    queryPage<Customer>({
      index: 'gsi1',
      partition: keys.customerByCreation(storeId, 0, '').gsi1pk,
      itemPrefix: `STORE#${storeId}#CUSTOMER#`,
      page,
      ascending: true,
    }),
});
