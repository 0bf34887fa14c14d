/**
 * The timer wheel's buckets on DynamoDB (the local emulator): each store's count of kept waits held under its cap with
 * one conditional ADD, a wait set again counted once, a refused one not kept, released ones subtracted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { keys } from '#shared/adapters/dynamodb/keys.ts';
import { getItem } from '#shared/adapters/dynamodb/table.ts';
import { dynamoTimerBuckets } from '#shared/adapters/dynamodb/timer-buckets.ts';
import type { FlowTimerPayload, Timer, WheelPayload } from '#shared/domain/timers/model.ts';

let runtime: LocalRuntime;
beforeAll(async () => {
  runtime = await startLocalRuntime({ gateways: false, pollers: false, logLevel: 'ERROR' });
});
afterAll(async () => {
  await runtime?.stop();
});

const MINUTE = 29_000_000 * 60_000;
const wait = (storeId: string, runId: string): Timer & { payload: FlowTimerPayload } => ({
  name: `flow-${storeId}-${runId}`,
  at: MINUTE - 1000,
  payload: { v: 1, kind: 'flow', storeId, runId, step: 'w' },
});

const runIdOf = (payload: WheelPayload) => (payload.kind === 'flow' ? payload.runId : undefined);

const waiting = async (storeId: string) => (await getItem(keys.waitingRuns(storeId), true))?.waiting;

describe('dynamoTimerBuckets', () => {
  it('keeps waits under the store cap, counts each once, and frees room as they are released', async () => {
    const buckets = dynamoTimerBuckets();
    const store = `st_wheel_${Date.now()}`;
    for (const run of ['a', 'b', 'c']) expect(await buckets.add(MINUTE, wait(store, run), 3)).toBe(true);
    expect(await buckets.add(MINUTE, wait(store, 'd'), 3)).toBe(false);
    expect(await buckets.add(MINUTE, wait(store, 'a'), 3)).toBe(true);
    expect(await waiting(store)).toBe(3);
    const due = await buckets.due(store, MINUTE);
    expect(due.items.map((item) => runIdOf(item.payload)).sort()).toEqual(['a', 'b', 'c']);

    await buckets.remove(store, MINUTE, [`flow-${store}-a`, `flow-${store}-b`], 2);
    expect(await waiting(store)).toBe(1);
    expect(await buckets.add(MINUTE, wait(store, 'd'), 3)).toBe(true);
    expect((await buckets.due(store, MINUTE)).items.map((item) => runIdOf(item.payload)).sort()).toEqual(['c', 'd']);
  });

  it('keeps a segment re-evaluation without counting it among the waiting runs', async () => {
    const buckets = dynamoTimerBuckets();
    const store = `st_wheel_seg_${Date.now()}`;
    const recheck = {
      name: `segment-${store}-c1`,
      at: MINUTE,
      payload: { v: 1, kind: 'segment', storeId: store, customerId: 'c1', at: MINUTE } as const,
    };
    expect(await buckets.add(MINUTE, recheck)).toBe(true);
    expect(await waiting(store)).toBeUndefined();
    expect((await buckets.due(store, MINUTE)).items).toEqual([{ name: recheck.name, payload: recheck.payload }]);
    await buckets.remove(store, MINUTE, [recheck.name], 0);
    expect((await buckets.due(store, MINUTE)).items).toEqual([]);
    expect(await waiting(store)).toBeUndefined();
  });
});
