import { dynamo } from '#shared/adapters/aws-clients.ts';
import { DeleteCommand, GetCommand, UpdateCommand } from '#shared/adapters/dynamodb-client.ts';
import type { AcceptedEvent, EventFailure } from '#shared/domain/ingest/model.ts';
import type { EventLog } from '#shared/domain/ingest/ports.ts';
import { itemMeta, keys } from './keys.ts';
import { putIfAbsent, tableName } from './table.ts';

/** De-duplication records: one conditional put per store + `source_id` (with the hash of the event's data). */
export const dynamoEventLog = (): EventLog => ({
  record: (event: AcceptedEvent, dataHash: string) =>
    putIfAbsent({ ...keys.event(event.storeId, event.sourceId), ...itemMeta('event'), ...event, dataHash }),
  async forget(storeId: string, sourceId: string) {
    await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: keys.event(storeId, sourceId) }));
  },
  async markFailed(storeId: string, sourceId: string, failure: EventFailure) {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.event(storeId, sourceId),
        UpdateExpression: 'SET failure = :failure',
        ExpressionAttributeValues: { ':failure': failure },
      }),
    );
  },
  async markRequeued(storeId: string, sourceId: string) {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.event(storeId, sourceId),
        UpdateExpression: 'SET requeued = :yes',
        ExpressionAttributeValues: { ':yes': true },
      }),
    );
  },
  async status(storeId: string, sourceId: string) {
    const { Item } = await dynamo().send(
      new GetCommand({
        TableName: tableName(),
        Key: keys.event(storeId, sourceId),
        ProjectionExpression: 'endpoint, #interface, acceptedAt, failure',
        ExpressionAttributeNames: { '#interface': 'interface' },
      }),
    );
    if (typeof Item?.acceptedAt !== 'number') return undefined;
    return {
      endpoint: String(Item.endpoint),
      interface: String(Item.interface),
      acceptedAt: Item.acceptedAt,
      ...(Item.failure ? { failure: Item.failure as EventFailure } : {}),
    };
  },
  async recorded(storeId: string, sourceId: string) {
    const { Item } = await dynamo().send(
      new GetCommand({
        TableName: tableName(),
        Key: keys.event(storeId, sourceId),
        ProjectionExpression: 'acceptedAt, dataHash, requeued, failure',
        ConsistentRead: true,
      }),
    );
    if (typeof Item?.acceptedAt !== 'number') return undefined;
    return {
      acceptedAt: Item.acceptedAt,
      ...(typeof Item.dataHash === 'string' ? { dataHash: Item.dataHash } : {}),
      ...(Item.requeued === true ? { requeued: true } : {}),
      ...(Item.failure ? { failure: Item.failure as EventFailure } : {}),
    };
  },
});
