/** Backtest jobs (docs/backtest.md "As a job"): one item each, the answer compressed on it, removed by TTL. */

import { dynamo } from '#shared/adapters/aws-clients.ts';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '#shared/adapters/dynamodb-client.ts';
import type { BacktestJob, BacktestJobs } from '#shared/domain/backtest/job.ts';
import { itemMeta, keys, withoutMeta } from './keys.ts';
import { ignoreConditionFailure, isConditionFailure, tableName } from './table.ts';

export const dynamoBacktestJobs = (): BacktestJobs => ({
  async create(job) {
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keys.backtestJob(job.storeId, job.id), ...itemMeta('backtestJob'), ...job },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  },
  async get(storeId, id) {
    const { Item } = await dynamo().send(
      new GetCommand({ TableName: tableName(), Key: keys.backtestJob(storeId, id), ConsistentRead: true }),
    );
    if (!Item) return undefined;
    return { ...withoutMeta<BacktestJob>(Item), expiresAt: Number(Item.expiresAt) };
  },
  async start(storeId, id, at) {
    try {
      await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.backtestJob(storeId, id),
          UpdateExpression: 'SET #status = :running, startedAt = :at, attempts = attempts + :one REMOVE progress',
          ConditionExpression: '#status = :queued',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':running': 'running', ':queued': 'queued', ':at': at, ':one': 1 },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  },
  async release(storeId, id) {
    await dynamo()
      .send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.backtestJob(storeId, id),
          UpdateExpression: 'SET #status = :queued',
          ConditionExpression: '#status = :running',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':queued': 'queued', ':running': 'running' },
        }),
      )
      .catch(ignoreConditionFailure);
  },
  async progress(storeId, id, progress) {
    await dynamo()
      .send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.backtestJob(storeId, id),
          UpdateExpression: 'SET progress = :progress',
          ConditionExpression: '#status = :running',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':progress': progress, ':running': 'running' },
        }),
      )
      .catch(ignoreConditionFailure);
  },
  async finish(storeId, id, outcome) {
    const values: Record<string, unknown> = {
      ':status': outcome.status,
      ':finishedAt': outcome.finishedAt,
      ':running': 'running',
    };
    const sets = ['#status = :status', 'finishedAt = :finishedAt'];
    for (const name of ['result', 'error', 'progress'] as const) {
      if (outcome[name] === undefined) continue;
      sets.push(`#${name} = :${name}`);
      values[`:${name}`] = outcome[name];
    }
    await dynamo()
      .send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.backtestJob(storeId, id),
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: '#status = :running',
          ExpressionAttributeNames: {
            '#status': 'status',
            ...Object.fromEntries(
              (['result', 'error', 'progress'] as const)
                .filter((n) => outcome[n] !== undefined)
                .map((n) => [`#${n}`, n]),
            ),
          },
          ExpressionAttributeValues: values,
        }),
      )
      .catch(ignoreConditionFailure);
  },
  async remove(storeId, id) {
    await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: keys.backtestJob(storeId, id) }));
  },
});
