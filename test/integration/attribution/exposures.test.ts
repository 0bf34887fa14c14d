/**
 * The A/B exposure marks in the table (`dynamoAttribution`, docs/attribution.md "A/B groups"): one per contact and
 * flow, all read in one query, replaced by a later run; an order's amount is added atomically and the run's revenue
 * before it comes back (the sum of squares depends on it); a replaced run's order adds nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoAttribution } from '#shared/adapters/dynamodb/attribution.ts';

let runtime: LocalRuntime;
const STORE = 'st_exposures';

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR', gateways: false, pollers: false });
});

afterAll(async () => {
  await runtime?.stop();
});

describe('exposure marks', () => {
  it('keeps one mark per flow for a contact, whatever the case of the address, and a later run replaces it', async () => {
    const store = dynamoAttribution();
    await store.markExposure(STORE, 'Ada@Example.com', { flowId: 'fl_1', runId: 'run_a', group: 'a', at: 1000 });
    await store.markExposure(STORE, 'ada@example.com', { flowId: 'fl_2', runId: 'run_b', group: 'holdout', at: 2000 });
    await store.markExposure(STORE, 'ada@example.com', { flowId: 'fl_1', runId: 'run_c', group: 'a', at: 3000 });
    const marks = await store.exposuresOf(STORE, 'ADA@example.com');
    expect(marks.sort((x, y) => x.flowId.localeCompare(y.flowId))).toEqual([
      { flowId: 'fl_1', runId: 'run_c', group: 'a', at: 3000 },
      { flowId: 'fl_2', runId: 'run_b', group: 'holdout', at: 2000 },
    ]);
    expect(await store.exposuresOf(STORE, 'bo@example.com')).toEqual([]);
  });

  it("answers the run's revenue before each order, per currency, and nothing for a replaced run", async () => {
    const store = dynamoAttribution();
    const email = 'cy@example.com';
    await store.markExposure(STORE, email, { flowId: 'fl_1', runId: 'run_1', group: 'b', at: 1000 });
    const run = { flowId: 'fl_1', runId: 'run_1' };
    expect(await store.addExposureRevenue(STORE, email, run, 'EUR', 10.5)).toBe(0);
    expect(await store.addExposureRevenue(STORE, email, run, 'EUR', 4.5)).toBe(10.5);
    expect(await store.addExposureRevenue(STORE, email, run, 'USD', 7)).toBe(0);
    expect(await store.addExposureRevenue(STORE, email, run, 'EUR', 1)).toBe(15);

    await store.markExposure(STORE, email, { flowId: 'fl_1', runId: 'run_2', group: 'b', at: 5000 });
    expect(await store.addExposureRevenue(STORE, email, run, 'EUR', 3)).toBeUndefined();
    expect(await store.addExposureRevenue(STORE, email, { flowId: 'fl_1', runId: 'run_2' }, 'EUR', 3)).toBe(0);
    expect(await store.addExposureRevenue(STORE, email, { flowId: 'fl_9', runId: 'run_1' }, 'EUR', 3)).toBeUndefined();
  });
});
