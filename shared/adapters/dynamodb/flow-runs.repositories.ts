/**
 * The flow engine's records: runs, explain evaluations, re-entry guards, contact activity and recovery marks, plus
 * reads of recorded triggers. Every write that decides something is one conditional write (no transactions: the local
 * emulator has none, and none is needed).
 */
import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type {
  ContactActivity,
  ContactActivityEntry,
  FlowEntries,
  FlowEvaluationRepository,
  FlowRunRepository,
  Page,
  RecoveryMark,
  RecoveryMarks,
  TriggerLog,
} from '../../domain/flows/engine-ports.ts';
import { EXPLAIN_RETENTION_SECONDS, type FlowEvaluation, type FlowRun } from '../../domain/flows/run.ts';
import type { FlowTrigger } from '../../domain/flows/trigger.ts';
import { RevisionConflict } from '../../domain/ports.ts';
import { validationError } from '../../errors.ts';
import { dynamo } from '../aws-clients.ts';
import { batchGet } from './batch.ts';
import { itemMeta, keys, withoutMeta } from './keys.ts';
import { putRevisioned } from './revisioned.ts';
import { isConditionFailure, tableName } from './table.ts';

const expiresAfter = (atMs: number, seconds: number) => Math.floor(atMs / 1000) + seconds;

const getItem = async (key: { pk: string; sk: string }) => {
  const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  return Item;
};

export const dynamoTriggerLog = (): TriggerLog => ({
  async get(storeId, triggerId) {
    const item = await getItem(keys.trigger(storeId, triggerId));
    return item ? withoutMeta<FlowTrigger>(item) : undefined;
  },
});

const runItem = (run: FlowRun) => ({
  ...keys.flowRun(run.storeId, run.id),
  ...keys.flowRunsByFlow(run.storeId, run.flowId, run.startedAt, run.id),
  ...keys.flowRunsByContact(run.storeId, run.email, run.startedAt, run.id),
  ...itemMeta('flowRun'),
  ...run,
});

export const dynamoFlowRuns = (): FlowRunRepository => ({
  async get(storeId, runId) {
    const item = await getItem(keys.flowRun(storeId, runId));
    return item ? withoutMeta<FlowRun>(item) : undefined;
  },
  async create(run) {
    try {
      await putRevisioned(runItem(run), 0, `flow run ${run.id}`);
      return true;
    } catch (error) {
      if (error instanceof RevisionConflict) return false;
      throw error;
    }
  },
  save: (run, expectedRevision) => putRevisioned(runItem(run), expectedRevision, `flow run ${run.id}`),
  async getMany(storeId, runIds) {
    if (runIds.length === 0) return [];
    const unique = [...new Set(runIds)].map((runId) => keys.flowRun(storeId, runId));
    return (await batchGet(unique)).map((item) => withoutMeta<FlowRun>(item));
  },
});

/** Page cursors are the index position, opaque to callers; one of another list (or store) is refused. */
const encodeCursor = (key: Record<string, unknown>) => Buffer.from(JSON.stringify(key)).toString('base64url');
/**
 * The start key is rebuilt from exactly the attributes the list's query needs (all strings): a well-formed cursor of
 * another list carries other attributes, which DynamoDB would refuse with an error the caller could not act on.
 */
const decodeCursor = (
  cursor: string,
  attributes: readonly string[],
  check: (key: Record<string, string>) => boolean,
): Record<string, string> => {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      const raw = parsed as Record<string, unknown>;
      const key: Record<string, string> = {};
      for (const name of attributes) {
        const value = raw[name];
        if (typeof value !== 'string') throw new Error('not a cursor');
        key[name] = value;
      }
      if (Object.keys(raw).length === attributes.length && check(key)) return key;
    }
  } catch {
    // fall through
  }
  throw validationError('cursor is not a cursor of this list');
};

const pageOf = (items: Record<string, unknown>[] | undefined, last: Record<string, unknown> | undefined) => {
  const out: Page<FlowEvaluation> = { items: (items ?? []).map((item) => withoutMeta<FlowEvaluation>(item)) };
  return last ? { ...out, nextCursor: encodeCursor(last) } : out;
};

export const dynamoFlowEvaluations = (): FlowEvaluationRepository => ({
  async record(evaluation, partition) {
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.flowEvaluation(evaluation.storeId, partition, evaluation.at, evaluation.triggerId),
          ...(evaluation.email
            ? keys.flowEvaluationsByContact(
                evaluation.storeId,
                evaluation.email,
                evaluation.at,
                partition,
                evaluation.triggerId,
              )
            : {}),
          ...itemMeta('flowEvaluation'),
          ...evaluation,
          expiresAt: expiresAfter(evaluation.evaluatedAt, EXPLAIN_RETENTION_SECONDS),
        },
      }),
    );
  },
  async listForFlow(storeId, flowId, page) {
    const { pk } = keys.flowEvaluations(storeId, flowId);
    const result = await dynamo().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ScanIndexForward: false,
        Limit: page.limit,
        ...(page.cursor ? { ExclusiveStartKey: decodeCursor(page.cursor, ['pk', 'sk'], (k) => k.pk === pk) } : {}),
      }),
    );
    return pageOf(result.Items, result.LastEvaluatedKey);
  },
  async listForContact(storeId, email, page) {
    const { gsi1pk } = keys.flowEvaluationsByContact(storeId, email, 0, '', '');
    const result = await dynamo().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': gsi1pk },
        ScanIndexForward: false,
        Limit: page.limit,
        ...(page.cursor
          ? {
              ExclusiveStartKey: decodeCursor(
                page.cursor,
                ['pk', 'sk', 'gsi1pk', 'gsi1sk'],
                (k) => k.gsi1pk === gsi1pk && (k.pk ?? '').startsWith(`STORE#${storeId}#EVAL#`),
              ),
            }
          : {}),
      }),
    );
    return pageOf(result.Items, result.LastEvaluatedKey);
  },
});

export const dynamoFlowEntries = (): FlowEntries => ({
  async claim(storeId, flowId, entryKey, entry) {
    const key = keys.flowEntry(storeId, flowId, entryKey);
    const { expiredBefore } = entry;
    const expired = expiredBefore !== undefined;
    try {
      await dynamo().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...key,
            ...itemMeta('flowEntry'),
            storeId,
            flowId,
            runId: entry.runId,
            enteredAt: entry.at,
            // A cool-down guard is only needed until the cool-down ends.
            ...(expired ? { expiresAt: expiresAfter(entry.at, Math.ceil((entry.at - expiredBefore) / 1000)) } : {}),
          },
          ConditionExpression: `attribute_not_exists(pk) OR runId = :runId${expired ? ' OR enteredAt < :expired' : ''}`,
          ExpressionAttributeValues: {
            ':runId': entry.runId,
            ...(expired ? { ':expired': expiredBefore } : {}),
          },
        }),
      );
      return { claimed: true };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const holder = await getItem(key);
      return {
        claimed: false,
        holder: { runId: String(holder?.runId ?? ''), at: Number(holder?.enteredAt ?? 0) },
      };
    }
  },
});

export const dynamoContactActivity = (): ContactActivity => ({
  async record(entry) {
    try {
      await dynamo().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...keys.contactActivityEntry(entry.storeId, entry.email, entry.at, entry.triggerId),
            ...itemMeta('contactActivity'),
            ...entry,
            expiresAt: expiresAfter(entry.at, EXPLAIN_RETENTION_SECONDS),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  },
  async since(storeId, email, from) {
    const { pk } = keys.contactActivity(storeId, email);
    const { sk: fromSk } = keys.contactActivityEntry(storeId, email, from, '');
    const entries: ContactActivityEntry[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await dynamo().send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'pk = :pk AND sk >= :from',
          ExpressionAttributeValues: { ':pk': pk, ':from': fromSk },
          ConsistentRead: true,
          ExclusiveStartKey,
        }),
      );
      for (const item of page.Items ?? []) entries.push(withoutMeta<ContactActivityEntry>(item));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return entries;
  },
});

export const dynamoRecoveryMarks = (): RecoveryMarks => ({
  async claim(storeId, email, productId, mark) {
    const key = keys.recoveryMark(storeId, email, productId);
    try {
      await dynamo().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...key,
            ...itemMeta('recoveryMark'),
            kind: mark.kind,
            runId: mark.runId,
            at: mark.at,
            // Kept as long as it can block anyone: the window it was checked against.
            expiresAt: expiresAfter(mark.at, Math.ceil((mark.at - mark.notBefore) / 1000)),
          },
          ConditionExpression: 'attribute_not_exists(pk) OR kind = :kind OR runId = :runId OR #at < :notBefore',
          ExpressionAttributeNames: { '#at': 'at' },
          ExpressionAttributeValues: { ':kind': mark.kind, ':runId': mark.runId, ':notBefore': mark.notBefore },
        }),
      );
      return { claimed: true };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const holder = await getItem(key);
      return {
        claimed: false,
        holder: {
          kind: holder?.kind as RecoveryMark['kind'],
          runId: String(holder?.runId ?? ''),
          at: Number(holder?.at ?? 0),
        },
      };
    }
  },
  async release(storeId, email, productId, runId) {
    try {
      await dynamo().send(
        new DeleteCommand({
          TableName: tableName(),
          Key: keys.recoveryMark(storeId, email, productId),
          ConditionExpression: 'runId = :runId',
          ExpressionAttributeValues: { ':runId': runId },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  },
});
