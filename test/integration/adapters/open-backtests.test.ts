/**
 * A store's open backtest jobs in the table (`dynamoOpenBacktestJobs`): at most the cap at once, a job taken twice
 * counts once, a job past its time stops counting, and giving a place back can be repeated.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoOpenBacktestJobs } from '#shared/adapters/dynamodb/backtest-jobs.ts';

let runtime: LocalRuntime;

beforeAll(async () => {
  runtime = await startLocalRuntime({ gateways: false, pollers: false, logLevel: 'ERROR' });
});

afterAll(async () => {
  await runtime?.stop();
});

describe('open backtest jobs', () => {
  it('holds a store to its cap, counts a job once, lets an expired one go, and releases idempotently', async () => {
    const open = dynamoOpenBacktestJobs();
    const store = 'st_open_backtests';
    expect(await open.take(store, 'bt_a', 2, 1000, 5000)).toBe(true);
    expect(await open.take(store, 'bt_a', 2, 1000, 5000)).toBe(true);
    expect(await open.take(store, 'bt_b', 2, 1000, 5000)).toBe(true);
    expect(await open.take(store, 'bt_c', 2, 1000, 5000)).toBe(false);
    expect(await open.take('st_other_store', 'bt_c', 2, 1000, 5000)).toBe(true);
    await open.release(store, 'bt_a');
    await open.release(store, 'bt_a');
    expect(await open.take(store, 'bt_c', 2, 1000, 5000)).toBe(true);
    expect(await open.take(store, 'bt_d', 2, 1000, 5000)).toBe(false);
    // Past their time (a job whose messages were all lost), the others no longer count.
    expect(await open.take(store, 'bt_d', 2, 6000, 9000)).toBe(true);
  });
});
