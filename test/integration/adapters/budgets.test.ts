/**
 * A store's flow-run start reservations on the embedded DynamoDB (`dynamoRunBudget`): reservations made at once by
 * several workers all count (none lost, none twice), a store with none ahead starts afresh, and stores are apart; and
 * the bulk recipients budget (`dynamoBulkBudget`), the same item kept as a limit.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { coalescedRunBudget, dynamoBulkBudget, dynamoRunBudget } from '#shared/adapters/dynamodb/budgets.ts';
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
