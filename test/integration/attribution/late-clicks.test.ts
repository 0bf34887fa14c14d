/**
 * The marks a late click needs in the table (`dynamoAttribution`, docs/attribution.md "Clicks reported late"): a
 * contact's unattributed orders, newest first whatever the case of the address; an order decided `none` changed to
 * influenced once, and never one decided otherwise or not decided at all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoAttribution } from '#shared/adapters/dynamodb/attribution.ts';

let runtime: LocalRuntime;
const STORE = 'st_late_clicks';
const touch = { kind: 'bulk', batchId: 'bt_1', at: 1000 } as const;
const influenced = { kind: 'influenced', touch, currency: 'EUR', amount: 5 } as const;

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR', gateways: false, pollers: false });
});

afterAll(async () => {
  await runtime?.stop();
});

describe('late-click marks', () => {
  it("reads a contact's unattributed orders newest first, whatever the case of the address", async () => {
    const store = dynamoAttribution();
    const order = (orderId: string, paidAt: number) => ({ orderId, paidAt, windowDays: 5, currency: 'EUR', amount: 5 });
    await store.markUnattributed(STORE, 'Ada@Example.com', order('o-old', 9_000));
    await store.markUnattributed(STORE, 'ada@example.com', order('o-new', 10_000));
    expect((await store.unattributedOrders(STORE, 'ADA@example.com')).map((o) => o.orderId)).toEqual([
      'o-new',
      'o-old',
    ]);
    expect(await store.unattributedOrders(STORE, 'bo@example.com')).toEqual([]);
  });

  it('reconsiders an order decided none once, and never one decided otherwise or not at all', async () => {
    const store = dynamoAttribution();
    expect(await store.claimOrder(STORE, 'o-none', { kind: 'none' })).toBe(true);
    expect(await store.reconsiderOrder(STORE, 'o-none', influenced)).toBe(true);
    expect(await store.reconsiderOrder(STORE, 'o-none', influenced)).toBe(false);
    expect(await store.claimOrder(STORE, 'o-recovered', { ...influenced, kind: 'recovered' })).toBe(true);
    expect(await store.reconsiderOrder(STORE, 'o-recovered', influenced)).toBe(false);
    expect(await store.reconsiderOrder(STORE, 'o-unknown', influenced)).toBe(false);
  });
});
