import { dynamo } from '#shared/adapters/aws-clients.ts';
import { GetCommand, PutCommand } from '#shared/adapters/dynamodb-client.ts';
import { required } from '#shared/config.ts';
import { withoutMeta } from './keys.ts';

/** The service table's name (set by CDK from the catalog, or by the local runtime). */
export const tableName = (): string => required('tableName');

/** True when a conditional write failed its condition (the SDK names the error, whatever the transport). */
export const isConditionFailure = (error: unknown): boolean =>
  error instanceof Error && error.name === 'ConditionalCheckFailedException';

/** Rethrows anything but a failed condition (for writes whose failed condition means "already done"). */
export const ignoreConditionFailure = (error: unknown): void => {
  if (!isConditionFailure(error)) throw error;
};

/** The item at `key` as stored (consistent unless asked otherwise), or undefined. */
export const getItem = async (
  key: { pk: string; sk: string },
  consistent = true,
): Promise<Record<string, unknown> | undefined> => {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: consistent }),
  );
  return Item;
};

/** The record at `key` without its storage attributes (consistent unless asked otherwise), or undefined. */
export const getRecord = async <T>(key: { pk: string; sk: string }, consistent = true): Promise<T | undefined> => {
  const item = await getItem(key, consistent);
  return item ? withoutMeta<T>(item) : undefined;
};

/** Puts `item` unless its key exists: true when written, false when it was already there (a repeat). */
export const putIfAbsent = async (item: Record<string, unknown>): Promise<boolean> => {
  try {
    await dynamo().send(
      new PutCommand({ TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' }),
    );
    return true;
  } catch (error) {
    ignoreConditionFailure(error);
    return false;
  }
};
