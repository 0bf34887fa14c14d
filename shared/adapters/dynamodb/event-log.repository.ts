import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { AcceptedEvent, EventLog } from '../../domain/ports.ts';
import { dynamo } from '../aws-clients.ts';
import { itemMeta, keys } from './keys.ts';
import { isConditionFailure, tableName } from './table.ts';

/** De-duplication records: one conditional put per store + `source_id` (with the hash of the event's data). */
export const dynamoEventLog = (): EventLog => ({
  async record(event: AcceptedEvent, dataHash: string) {
    try {
      await dynamo().send(
        new PutCommand({
          TableName: tableName(),
          Item: { ...keys.event(event.storeId, event.sourceId), ...itemMeta('event'), ...event, dataHash },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  },
  async forget(storeId: string, sourceId: string) {
    await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: keys.event(storeId, sourceId) }));
  },
  async recorded(storeId: string, sourceId: string) {
    const { Item } = await dynamo().send(
      new GetCommand({
        TableName: tableName(),
        Key: keys.event(storeId, sourceId),
        ProjectionExpression: 'acceptedAt, dataHash',
        ConsistentRead: true,
      }),
    );
    if (typeof Item?.acceptedAt !== 'number') return undefined;
    return typeof Item.dataHash === 'string'
      ? { acceptedAt: Item.acceptedAt, dataHash: Item.dataHash }
      : { acceptedAt: Item.acceptedAt };
  },
});
