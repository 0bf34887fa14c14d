import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { RevisionConflict } from '../../domain/ports.ts';
import { dynamo } from '../aws-clients.ts';
import { isConditionFailure, tableName } from './table.ts';

/**
 * Puts an item whose stored `revision` must still be `expectedRevision` (0: the item must not exist). One write;
 * a lost race surfaces as `RevisionConflict` so the use case re-reads and re-applies.
 */
export const putRevisioned = async (item: Record<string, unknown>, expectedRevision: number, what: string) => {
  try {
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: item,
        ...(expectedRevision === 0
          ? { ConditionExpression: 'attribute_not_exists(pk)' }
          : {
              ConditionExpression: 'revision = :expected',
              ExpressionAttributeValues: { ':expected': expectedRevision },
            }),
      }),
    );
  } catch (error) {
    if (isConditionFailure(error)) throw new RevisionConflict(what);
    throw error;
  }
};
