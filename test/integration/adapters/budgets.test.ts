/**
 * A store's flow-run start reservations on the embedded DynamoDB (`dynamoRunBudget`): reservations made at once by
 * several workers all count (none lost, none twice), a store with none ahead starts afresh, and stores are apart; and
 * the bulk recipients budget (`dynamoBulkBudget`), the same item kept as a limit.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import {
  coalescedRunBudget,
  dynamoBulkBudget,
  dynamoRunBudget,
  leasedRunBudget,
} from '#shared/adapters/dynamodb/budgets.ts';
import { budgetAdmission } from '#shared/domain/flows/admission.ts';

let runtime: LocalRuntime;
beforeAll(async () => {
  runtime = await startLocalRuntime({ gateways: false, pollers: false, logLevel: 'ERROR' });
});
afterAll(async () => {
  await runtime?.stop();
});

const newStore = () => `st_${randomUUID().replaceAll('-', '').slice(0, 20)}`;

describe('the flow-run budget', () => {
  it('counts every reservation of several workers at once, each exactly once', async () => {
    const now = 1_700_000_000_000;
    const storeId = newStore();
    // Three workers (each its own instance, with its own memory of the store), 30 reservations of 100 ms at once.
    const workers = [dynamoRunBudget(), dynamoRunBudget(), dynamoRunBudget()];
    const ends = await Promise.all(
      Array.from({ length: 30 }, (_, i) => (workers[i % 3] ?? workers[0])?.reserve(storeId, 100, now)),
    );
    // The ends are the 30 slots after now, each given out once.
    expect(ends.map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => now + 100 * (i + 1)));
    // Another store's budget is its own.
    expect(await workers[0]?.reserve(newStore(), 100, now)).toBe(now + 100);
  });

  it('starts afresh once the reservations have passed, and answers when a trigger over it may start', async () => {
    let now = 1_700_000_000_000;
    const storeId = newStore();
    const admission = budgetAdmission(dynamoRunBudget(), { now: () => now }, 50);
    // Triggers of 50 flows: one second each; two start now (the burst), the third a second later.
    expect(await admission.admit(storeId, 50)).toBe(now);
    expect(await admission.admit(storeId, 50)).toBe(now);
    expect(await admission.admit(storeId, 50)).toBe(now + 1000);
    now += 60_000;
    expect(await admission.admit(storeId, 50)).toBe(now);
  });
});

describe('the flow-run budget gathered per turn', () => {
  it("makes a turn's reservations of one store in one write, each answered the end of its own", async () => {
    const now = 1_700_000_000_000;
    const storeId = newStore();
    const budget = coalescedRunBudget(dynamoRunBudget());
    const before = runtime.dynamodbCalls();
    const ends = await Promise.all([100, 200, 300].map((cost) => budget.reserve(storeId, cost, now)));
    const after = runtime.dynamodbCalls();
    const calls = Object.keys(after).reduce((sum, name) => sum + (after[name] ?? 0) - (before[name] ?? 0), 0);
    // As if made one after the other: 100, then 200, then 300 ms after now.
    expect(ends).toEqual([now + 100, now + 300, now + 600]);
    expect(calls).toBe(1);
    // The next turn goes on from there; another store is apart.
    const [next, other] = await Promise.all([budget.reserve(storeId, 100, now), budget.reserve(newStore(), 100, now)]);
    expect(next).toBe(now + 700);
    expect(other).toBe(now + 100);
  });

  it('admits a turn of triggers as it would one at a time: the burst now, the rest at their reserved times', async () => {
    const now = 1_700_000_000_000;
    const storeId = newStore();
    const admission = budgetAdmission(coalescedRunBudget(dynamoRunBudget()), { now: () => now }, 50);
    // Triggers of 50 flows: one second each; two start now (the burst), the third a second later, the fourth two.
    const at = await Promise.all([1, 2, 3, 4].map(() => admission.admit(storeId, 50)));
    expect(at).toEqual([now, now, now + 1000, now + 2000]);
  });
});

describe('the flow-run budget leased per worker', () => {
  it('hands out each slot once and never before its asker, in a few writes a second per worker', async () => {
    const start = 1_700_000_000_000;
    const storeId = newStore();
    // Two workers, each leasing; one trigger of one run every 10 ms for two seconds, alternately (50 runs a second:
    // 20 ms of budget each, so the store is at its budget half of the time and the workers' leases interleave).
    const workers = [leasedRunBudget(dynamoRunBudget()), leasedRunBudget(dynamoRunBudget())];
    const cost = 20;
    const before = runtime.dynamodbCalls();
    const slots: { now: number; end: number }[] = [];
    for (let i = 0; i < 200; i++) {
      const now = start + i * 10;
      const worker = workers[i % 2] ?? workers[0];
      slots.push({ now, end: (await worker?.reserve(storeId, cost, now)) ?? 0 });
    }
    const after = runtime.dynamodbCalls();
    const writes = (after.PutItem ?? 0) + (after.UpdateItem ?? 0) - (before.PutItem ?? 0) - (before.UpdateItem ?? 0);
    // Never a slot that starts before its asker's now (a lease's passed slots are not handed out).
    for (const slot of slots) expect(slot.end - cost).toBeGreaterThanOrEqual(slot.now);
    // Each slot once: the 200 ranges do not overlap, across both workers.
    const sorted = slots.map((slot) => slot.end).sort((a, b) => a - b);
    for (let i = 1; i < sorted.length; i++)
      expect((sorted[i] ?? 0) - (sorted[i - 1] ?? 0)).toBeGreaterThanOrEqual(cost);
    // Unleased, this is 200 writes (one per reservation); leased, a few per worker and second.
    expect(writes).toBeGreaterThan(0);
    expect(writes).toBeLessThan(40);
  });

  it("answers one worker's asks made while its lease is being taken from that lease, in order", async () => {
    const now = 1_700_000_000_000;
    const storeId = newStore();
    const budget = leasedRunBudget(dynamoRunBudget());
    // Warm the worker up: it used 100 ms of this store's budget in this second.
    await budget.reserve(storeId, 100, now);
    const ends = await Promise.all([20, 20, 20].map((cost) => budget.reserve(storeId, cost, now)));
    expect(ends).toEqual([now + 120, now + 140, now + 160]);
    // The lease holds what is left of twice the used 100 ms: another worker's reservation comes after it.
    expect(await dynamoRunBudget().reserve(storeId, 20, now)).toBe(now + 320);
  });

  it('admits triggers over the budget at their reserved times, as unleased', async () => {
    const now = 1_700_000_000_000;
    const storeId = newStore();
    const admission = budgetAdmission(coalescedRunBudget(leasedRunBudget(dynamoRunBudget())), { now: () => now }, 50);
    const at = await Promise.all([1, 2, 3, 4].map(() => admission.admit(storeId, 50)));
    expect(at).toEqual([now, now, now + 1000, now + 2000]);
  });
});

describe('the bulk recipients budget (a GCRA limit)', () => {
  it('takes what fits in the burst from several instances at once, each exactly once, and says when the rest fits', async () => {
    const now = 1_700_000_000_000;
    const storeId = newStore();
    const instances = [dynamoBulkBudget(), dynamoBulkBudget(), dynamoBulkBudget()];
    // 30 takes of 100 ms at once against a 1 s burst: ten fit.
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => (instances[i % 3] ?? instances[0])?.take(storeId, 100, 1000, now)),
    );
    expect(answers.filter((a) => a === undefined)).toHaveLength(10);
    // The others fit once the first 100 ms have passed.
    expect(new Set(answers.filter((a) => a !== undefined))).toEqual(new Set([now + 100]));
    expect(await instances[0]?.take(storeId, 100, 1000, now + 100)).toBeUndefined();
    // Another store's budget is its own; an idle one starts afresh.
    expect(await instances[1]?.take(newStore(), 1000, 1000, now)).toBeUndefined();
    expect(await instances[2]?.take(storeId, 1000, 1000, now + 60_000)).toBeUndefined();
  });
});
