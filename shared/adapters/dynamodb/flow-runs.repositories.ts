/**
 * The flow engine's records: runs, explain evaluations, re-entry guards, contact activity and recovery marks, plus
 * reads of recorded triggers. Every write that decides something is one conditional write (no transactions: the local
 * emulator has none, and none is needed).
 */

import { dynamo } from '#shared/adapters/aws-clients.ts';
import { DeleteCommand, PutCommand } from '#shared/adapters/dynamodb-client.ts';
import type {
  ContactActivity,
  ContactActivityEntry,
  FlowEntries,
  FlowEvaluationRepository,
  FlowRunRepository,
  RecoveryMark,
  RecoveryMarks,
  TriggerLog,
} from '#shared/domain/flows/ports.ts';
import { EXPLAIN_RETENTION_SECONDS, type FlowEvaluation, type FlowRun } from '#shared/domain/flows/run.ts';
import type { FlowTrigger } from '#shared/domain/flows/trigger.ts';
import { batchGet } from './batch.ts';
import { directPuts, directReads, type ItemReader, type ItemWriter, readRecord } from './coalesced.ts';
import { itemMeta, keys, withoutMeta } from './keys.ts';
import { packJson, unpackJson } from './packed-json.ts';
import { queryItems, queryPage } from './query.ts';
import { putRevisioned } from './revisioned.ts';
import { getItem, ignoreConditionFailure, isConditionFailure, putIfAbsent, tableName } from './table.ts';

const expiresAfter = (atMs: number, seconds: number) => Math.floor(atMs / 1000) + seconds;

/** `reads`: where single items are read (the flow worker gathers its batch's reads, `coalesced.ts`). */
export const dynamoTriggerLog = (reads: ItemReader = directReads): TriggerLog => ({
  get: (storeId, triggerId) => readRecord<FlowTrigger>(reads, keys.trigger(storeId, triggerId)),
});

/**
 * A run item's layout (docs/flows.md "Stored records"). Schema 2: the trigger, most of a run's bytes and
 * the same in every state of it, is one packed binary attribute (`packed-json.ts`), and the item has no index keys
 * (nothing queried them); a run of a small order then stays under 1 KB, one write unit per put instead of two.
 * Schema 1 items (the trigger as a map, index keys) are still read as they are.
 */
const RUN_SCHEMA = 2;

/** A run's trigger packed once per warm function, not at each of its writes (every state shares the object). */
const packedTriggers = new WeakMap<FlowTrigger, Uint8Array>();
const packedTrigger = (trigger: FlowTrigger): Uint8Array => {
  let bytes = packedTriggers.get(trigger);
  if (!bytes) {
    bytes = packJson(trigger);
    packedTriggers.set(trigger, bytes);
  }
  return bytes;
};

const runItem = ({ trigger, ...run }: FlowRun) => ({
  ...keys.flowRun(run.storeId, run.id),
  ...itemMeta('flowRun', RUN_SCHEMA),
  ...run,
  packedTrigger: packedTrigger(trigger),
});

/** The run an item holds, of either schema. */
const runOf = (item: Record<string, unknown>): FlowRun => {
  const { packedTrigger: packed, ...run } = withoutMeta<Record<string, unknown>>(item);
  if (!(packed instanceof Uint8Array)) return run as unknown as FlowRun;
  const trigger = unpackJson<FlowTrigger>(packed);
  // Saving the run again (every next state shares this object) reuses the bytes read rather than packing anew.
  packedTriggers.set(trigger, packed);
  return { ...run, trigger } as unknown as FlowRun;
};

/**
 * `reads`: where single runs are read; `puts`: where a guarded run's first write goes (the flow worker gathers its
 * batch's reads and puts, `coalesced.ts`).
 */
export const dynamoFlowRuns = (reads: ItemReader = directReads, puts: ItemWriter = directPuts): FlowRunRepository => ({
  async get(storeId, runId) {
    const item = await reads.get(keys.flowRun(storeId, runId));
    return item ? runOf(item) : undefined;
  },
  async create(run, options) {
    // Its guard's fresh claim makes this caller the run's only writer: a plain put, in the batch's BatchWriteItem.
    if (!options?.guarded) return putIfAbsent(runItem(run));
    await puts.put([runItem(run)]);
    return true;
  },
  async save(run, expectedRevision, options) {
    // Its fresh send claim makes this caller the run's only writer: a plain put, in the batch's BatchWriteItem.
    if (options?.claimed) return puts.put([runItem(run)]);
    await putRevisioned(runItem(run), expectedRevision, `flow run ${run.id}`);
  },
  async getMany(storeId, runIds) {
    if (runIds.length === 0) return [];
    const unique = [...new Set(runIds)].map((runId) => keys.flowRun(storeId, runId));
    return (await batchGet(unique)).map(runOf);
  },
});

/** `puts`: where the (unconditional) evaluation records are written; the flow worker gathers its batch's. */
export const dynamoFlowEvaluations = (puts: ItemWriter = directPuts): FlowEvaluationRepository => ({
  async record(evaluation, partition) {
    await puts.put([
      {
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
    ]);
  },
  listForFlow: (storeId, flowId, page) =>
    queryPage<FlowEvaluation>({ partition: keys.flowEvaluations(storeId, flowId).pk, page }),
  listForContact: (storeId, email, page) =>
    queryPage<FlowEvaluation>({
      index: 'gsi1',
      partition: keys.flowEvaluationsByContact(storeId, email, 0, '', '').gsi1pk,
      page,
      // Any flow's evaluations partition of this store (an empty flow id leaves the prefix).
      itemPrefix: keys.flowEvaluations(storeId, '').pk,
    }),
});

export const dynamoFlowEntries = (): FlowEntries => ({
  async claim(storeId, flowId, entryKey, entry) {
    const key = keys.flowEntry(storeId, flowId, entryKey);
    const { expiredBefore } = entry;
    const expired = expiredBefore !== undefined;
    try {
      const answer = await dynamo().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...key,
            ...itemMeta('flowEntry'),
            storeId,
            flowId,
            runId: entry.runId,
            enteredAt: entry.at,
            claimedAt: entry.claimedAt,
            // A cool-down guard is only needed until the cool-down ends.
            ...(expired ? { expiresAt: expiresAfter(entry.at, Math.ceil((entry.at - expiredBefore) / 1000)) } : {}),
          },
          // Held by this run: taken back only from a delivery that died (its claim stale), or from a guard written
          // before claims carried their time (`claimedAt`), whose run's create is conditional anyway. Written
          // without grouping parentheses (AND binds tighter than OR): docs/decisions.md, "Condition expressions".
          ConditionExpression: `attribute_not_exists(pk) OR runId = :runId AND attribute_not_exists(claimedAt) OR runId = :runId AND claimedAt < :stale${expired ? ' OR enteredAt < :expired' : ''}`,
          ExpressionAttributeValues: {
            ':runId': entry.runId,
            ':stale': entry.staleBefore,
            ...(expired ? { ':expired': expiredBefore } : {}),
          },
          ReturnValues: 'ALL_OLD',
        }),
      );
      return answer.Attributes?.runId === entry.runId ? { claimed: true, reclaimed: true } : { claimed: true };
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

/**
 * `puts`: where entries are written (the flow worker gathers its batch's, `coalesced.ts`). A plain put: the item's key
 * names the address, the time and the trigger, and everything else in it comes from the trigger too, so writing it
 * again (a redelivered trigger) writes the same item.
 */
export const dynamoContactActivity = (puts: ItemWriter = directPuts): ContactActivity => ({
  async record(entry) {
    await puts.put([
      {
        ...keys.contactActivityEntry(entry.storeId, entry.email, entry.at, entry.triggerId),
        ...itemMeta('contactActivity'),
        ...entry,
        expiresAt: expiresAfter(entry.at, EXPLAIN_RETENTION_SECONDS),
      },
    ]);
  },
  since: (storeId, email, from) =>
    queryItems<ContactActivityEntry>({
      KeyConditionExpression: 'pk = :pk AND sk >= :from',
      ExpressionAttributeValues: {
        ':pk': keys.contactActivity(storeId, email).pk,
        ':from': keys.contactActivityEntry(storeId, email, from, '').sk,
      },
      ConsistentRead: true,
    }),
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
      ignoreConditionFailure(error);
    }
  },
});
