import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '#shared/adapters/aws-clients.ts';
import type { AcceptedEvent } from '#shared/domain/ingest/model.ts';
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
