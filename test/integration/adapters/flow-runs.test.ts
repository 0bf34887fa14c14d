/**
 * Flow runs on the embedded DynamoDB (`dynamoFlowRuns`): a run item of schema 2 keeps its trigger packed and under
 * 1 KB for a small order (one write unit per put), reads back as written (alone, gathered, several at once), and a run
 * written by the previous version (schema 1: the trigger as a map, index keys) is still read, moved on and saved.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamo } from '#shared/adapters/aws-clients.ts';
import { coalescedGets, coalescedPuts } from '#shared/adapters/dynamodb/coalesced.ts';
import { dynamoFlowEntries, dynamoFlowRuns } from '#shared/adapters/dynamodb/flow-runs.repositories.ts';
import { keys } from '#shared/adapters/dynamodb/keys.ts';
import { tableName } from '#shared/adapters/dynamodb/table.ts';
import { GetCommand, PutCommand } from '#shared/adapters/dynamodb-client.ts';
import { type FlowRun, runIdOf } from '#shared/domain/flows/run.ts';
import { finished, next } from '#shared/domain/flows/run-changes.ts';
import type { FlowTrigger } from '#shared/domain/flows/trigger.ts';
import { RevisionConflict } from '#shared/domain/repository.ts';

let runtime: LocalRuntime;
beforeAll(async () => {
  runtime = await startLocalRuntime({ gateways: false, pollers: false, logLevel: 'ERROR' });
});
afterAll(async () => {
  await runtime?.stop();
});

const newStore = () => `st_${randomUUID().replaceAll('-', '').slice(0, 20)}`;

/** An `order_paid` trigger shaped as the flows bench fires it (three lines). */
const orderTrigger = (storeId: string, n: number): FlowTrigger => ({
  id: `event#o-${n}#order_paid`,
  storeId,
  kind: 'order_paid',
  subject: { type: 'order', id: `o-${n}` },
  contact: { email: `ada${n}@example.com`, customerId: `c-${n}` },
  cause: { endpoint: 'orders/paid', sourceId: `o-${n}` },
  context: {
    order: {
      id: `o-${n}`,
      status: 'paid',
      name: `#${n}`,
      total_price: '137.70',
      currency: 'EUR',
      line_items: [
        {
          id: 'l1',
          product_id: 'p-1',
          title: 'Desk lamp',
          quantity: 2,
          price: '19.90',
          src: 'https://b.example/1.jpg',
        },
        {
          id: 'l2',
          product_id: 'p-2',
          title: 'Lamp shade',
          quantity: 1,
          price: '48.00',
          src: 'https://b.example/2.jpg',
        },
        { id: 'l3', product_id: 'p-3', title: 'Bulb', quantity: 5, price: '9.98' },
      ],
    },
  },
  at: 1_767_000_000_000,
});

const newRun = (storeId: string, n: number): FlowRun => {
  const trigger = orderTrigger(storeId, n);
  const flowId = 'fl_0123456789abcdef0123';
  const now = trigger.at + 5;
  return {
    storeId,
    id: runIdOf(storeId, flowId, trigger.id),
    flowId,
    flowKind: 'order_paid',
    trigger,
    email: `ada${n}@example.com`,
    status: 'active',
    nextStepId: 'order-confirmation',
    sending: { stepId: 'order-confirmation', claimedAt: now },
    events: [{ at: now, type: 'entered' }],
    startedAt: now,
    updatedAt: now,
    revision: 1,
  };
};

/** Write capacity units of putting `run` as a new item (DynamoDB's per-kilobyte rounding, as dynalite counts it). */
const writeUnits = async (run: FlowRun, put: (run: FlowRun) => Promise<unknown>) => {
  let units = 0;
  const name = `meter-${randomUUID()}`;
  const stack = dynamo().middlewareStack;
  stack.add(
    ((nextHandler: (args: { input: Record<string, unknown> }) => Promise<{ output: Record<string, unknown> }>) =>
      async (args: { input: Record<string, unknown> }) => {
        const result = await nextHandler({ ...args, input: { ...args.input, ReturnConsumedCapacity: 'TOTAL' } });
        units += Number((result.output.ConsumedCapacity as { CapacityUnits?: number } | undefined)?.CapacityUnits ?? 0);
        return result;
      }) as never,
    { step: 'initialize', name },
  );
  try {
    await put(run);
  } finally {
    stack.remove(name);
  }
  return units;
};

describe('flow run items', () => {
  it('keeps the trigger packed, with no index keys, one write unit per put of a small order run', async () => {
    const runs = dynamoFlowRuns();
    const storeId = newStore();
    const run = newRun(storeId, 1);
    expect(await writeUnits(run, (r) => runs.create(r))).toBe(1);
    const stored = await dynamo().send(
      new GetCommand({ TableName: tableName(), Key: { pk: keys.flowRun(storeId, run.id).pk, sk: 'RUN' } }),
    );
    const item = stored.Item ?? {};
    expect(item.packedTrigger).toBeInstanceOf(Uint8Array);
    expect(item.trigger).toBeUndefined();
    expect(Object.keys(item).filter((name) => name.startsWith('gsi'))).toEqual([]);
    expect(item.schema).toBe(2);
    // The completed run (emailed, its message id, completed) still fits in one unit.
    const done = finished(run, run.startedAt + 80, 'completed', undefined, undefined, [
      { type: 'emailed', stepId: 'order-confirmation', messageId: `0100018c-${'a'.repeat(36)}-000000` },
    ]);
    expect(await writeUnits(done, (r) => runs.save(r, run.revision))).toBe(1);
    // The TTL attribute is storage's (read back without it, as every record).
    const { expiresAt, ...shown } = done;
    expect(expiresAt).toBeGreaterThan(0);
    expect(await runs.get(storeId, run.id)).toEqual(shown);
  });

  it('reads back as written, alone, gathered per turn and several at once', async () => {
    const storeId = newStore();
    const written = [newRun(storeId, 2), newRun(storeId, 3)];
    const runs = dynamoFlowRuns();
    for (const run of written) expect(await runs.create(run)).toBe(true);
    expect(await runs.create(written[0] as FlowRun)).toBe(false);
    expect(await runs.get(storeId, (written[0] as FlowRun).id)).toEqual(written[0]);
    const gathered = dynamoFlowRuns(coalescedGets());
    expect(await Promise.all(written.map((run) => gathered.get(storeId, run.id)))).toEqual(written);
    const many = await runs.getMany(storeId, [...written.map((run) => run.id), 'run_missing']);
    expect(many.sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      [...written].sort((a, b) => a.id.localeCompare(b.id)),
    );
  });

  it('reads a run the previous version wrote (schema 1), moves it on and keeps refusing a stale revision', async () => {
    const storeId = newStore();
    const run = newRun(storeId, 4);
    // Exactly as schema 1 wrote it: the whole run, the trigger as a map, both index keys.
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.flowRun(storeId, run.id),
          gsi1pk: `STORE#${storeId}#FLOW#${run.flowId}#RUNS`,
          gsi1sk: `${String(run.startedAt).padStart(15, '0')}#${run.id}`,
          gsi2pk: `STORE#${storeId}#CONTACT#${run.email}#RUNS`,
          gsi2sk: `${String(run.startedAt).padStart(15, '0')}#${run.id}`,
          entity: 'flowRun',
          schema: 1,
          ...run,
        },
      }),
    );
    const runs = dynamoFlowRuns();
    const read = await runs.get(storeId, run.id);
    expect(read).toEqual(run);
    expect((await runs.getMany(storeId, [run.id]))[0]).toEqual(run);
    const moved = next(read as FlowRun, run.startedAt + 10, {}, ['sending']);
    await runs.save(moved, run.revision);
    expect(await runs.get(storeId, run.id)).toEqual(moved);
    await expect(runs.save(next(moved, run.startedAt + 20, {}, []), run.revision)).rejects.toBeInstanceOf(
      RevisionConflict,
    );
  });
});

describe('re-entry guards and guarded runs', () => {
  const FLOW = 'fl_0123456789abcdef0123';

  it("decides a run's one writer: a fresh claim of its own refuses, a stale one or a guard written before claims is taken back", async () => {
    const storeId = newStore();
    const entries = dynamoFlowEntries();
    const claim = (runId: string, claimedAt: number, expiredBefore?: number) =>
      entries.claim(storeId, FLOW, 'subject#order#o-1', {
        runId,
        at: 1_000,
        claimedAt,
        staleBefore: claimedAt - 150_000,
        ...(expiredBefore !== undefined ? { expiredBefore } : {}),
      });
    expect(await claim('rn_a', 1_000_000)).toEqual({ claimed: true });
    // Another delivery of the same trigger, a moment later: the holder is its own run, not claimed.
    expect(await claim('rn_a', 1_000_500)).toEqual({ claimed: false, holder: { runId: 'rn_a', at: 1_000 } });
    // Another run: refused, as before.
    expect(await claim('rn_b', 2_000_000)).toEqual({ claimed: false, holder: { runId: 'rn_a', at: 1_000 } });
    // The first delivery died: past the stale time its own run's guard is taken back.
    expect(await claim('rn_a', 1_200_000)).toEqual({ claimed: true, reclaimed: true });
    // A cool-down passed: another run takes it, not as a reclaim.
    expect(await claim('rn_c', 3_000_000, 2_000)).toEqual({ claimed: true });

    // A guard the previous version wrote (no claim time) for this run: taken back at once.
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.flowEntry(storeId, FLOW, 'contact#ada@example.com'),
          entity: 'flowEntry',
          storeId,
          flowId: FLOW,
          runId: 'rn_old',
          enteredAt: 5,
        },
      }),
    );
    const old = await entries.claim(storeId, FLOW, 'contact#ada@example.com', {
      runId: 'rn_old',
      at: 5,
      claimedAt: 10,
      staleBefore: -149_990,
    });
    expect(old).toEqual({ claimed: true, reclaimed: true });
  });

  it("writes a guarded run with the turn's other puts, and a reclaimed one only if it is not there", async () => {
    const storeId = newStore();
    const runs = dynamoFlowRuns(coalescedGets(), coalescedPuts());
    const [a, b] = [newRun(storeId, 10), newRun(storeId, 11)];
    const before = runtime.dynamodbCalls();
    expect(await Promise.all([runs.create(a, { guarded: true }), runs.create(b, { guarded: true })])).toEqual([
      true,
      true,
    ]);
    const after = runtime.dynamodbCalls();
    expect((after.BatchWriteItem ?? 0) - (before.BatchWriteItem ?? 0)).toBe(1);
    expect((after.PutItem ?? 0) - (before.PutItem ?? 0)).toBe(0);
    expect(await runs.get(storeId, a.id)).toEqual(a);
    expect(await runs.get(storeId, b.id)).toEqual(b);
    // Without the guard's fresh claim the create stays conditional: an existing run is kept.
    expect(await runs.create({ ...a, revision: 1, updatedAt: a.updatedAt + 1 })).toBe(false);
    expect(await runs.get(storeId, a.id)).toEqual(a);
  });
});
