/** Backtest jobs (docs/backtest.md "As a job"): one item each, the answer compressed on it, removed by TTL. */

import { dynamo } from '#shared/adapters/aws-clients.ts';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '#shared/adapters/dynamodb-client.ts';
import type { BacktestJob, BacktestJobs, OpenBacktestJobs } from '#shared/domain/backtest/job.ts';
import { itemMeta, keys, withoutMeta } from './keys.ts';
import { getItem, ignoreConditionFailure, isConditionFailure, tableName } from './table.ts';

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

/** Tries of a take that lost its version race to another take of the same store. */
const TAKE_TRIES = 5;

/**
 * The store's open jobs on one item: a map of job id to the time it stops counting, and a version every change
 * checks. A take drops the expired ids, checks the cap and adds its own in one conditional write.
 */
export const dynamoOpenBacktestJobs = (): OpenBacktestJobs => ({
  async take(storeId, backtestId, cap, now, until) {
    for (let tries = 1; ; tries++) {
      const item = await getItem(keys.openBacktests(storeId));
      const jobs = (item?.jobs ?? {}) as Record<string, number>;
      const live = Object.entries(jobs).filter(([id, ends]) => ends > now && id !== backtestId);
      if (live.length >= cap) return false;
      const version = Number(item?.version ?? 0);
      try {
        await dynamo().send(
          new PutCommand({
            TableName: tableName(),
            Item: {
              ...keys.openBacktests(storeId),
              ...itemMeta('openBacktests'),
              jobs: { ...Object.fromEntries(live), [backtestId]: until },
              version: version + 1,
            },
            ConditionExpression: item ? 'version = :version' : 'attribute_not_exists(pk)',
            ...(item ? { ExpressionAttributeValues: { ':version': version } } : {}),
          }),
        );
        return true;
      } catch (error) {
        if (!isConditionFailure(error) || tries >= TAKE_TRIES) throw error;
      }
    }
  },
  async release(storeId, backtestId) {
    await dynamo()
      .send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.openBacktests(storeId),
          UpdateExpression: 'REMOVE jobs.#id ADD version :one',
          ConditionExpression: 'attribute_exists(jobs.#id)',
          ExpressionAttributeNames: { '#id': backtestId },
          ExpressionAttributeValues: { ':one': 1 },
        }),
      )
      .catch(ignoreConditionFailure);
  },
});
