import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { AcceptedEvent, EventLog } from '../../domain/ports.ts';
import { dynamo } from '../aws-clients.ts';
import { itemMeta, keys } from './keys.ts';
import { isConditionFailure, tableName } from './table.ts';

/** De-duplication records: one conditional put per store + `source_id`. */
export const dynamoEventLog = (): EventLog => ({
  async record(event: AcceptedEvent) {
    try {
      await dynamo().send(
        new PutCommand({
          TableName: tableName(),
          Item: { ...keys.event(event.storeId, event.sourceId), ...itemMeta('event'), ...event },
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
});
