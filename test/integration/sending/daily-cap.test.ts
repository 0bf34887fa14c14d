/**
 * The per-store daily cap on marketing email (issue 13): one store cannot spend the shared SES account's day. Runs
 * with a cap of 3 (`STORE_DAILY_SEND_CAP`); another store keeps its own allowance.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { setStoreDailySendCap } from '#shared/domain/stores/manage-stores.ts';
import { storeAdminDeps } from '#shared/wiring/store-admin.ts';
import { newStore, type TestStore } from '#test/support/local.ts';
import { bulk, recipients, registerDomain, send } from '#test/support/sending.ts';

let runtime: LocalRuntime;
let heavy: TestStore;
let other: TestStore;
const previous = process.env.STORE_DAILY_SEND_CAP;

beforeAll(async () => {
  process.env.STORE_DAILY_SEND_CAP = '3';
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
  [heavy, other] = await Promise.all([newStore('Daily cap heavy'), newStore('Daily cap other')]);
  await registerDomain(runtime, heavy, 'heavy-sender.example');
  await registerDomain(runtime, other, 'other-sender.example');
});

afterAll(async () => {
  await runtime?.stop();
  if (previous === undefined) delete process.env.STORE_DAILY_SEND_CAP;
  else process.env.STORE_DAILY_SEND_CAP = previous;
});

describe('the daily cap', () => {
  it("refuses a bulk send that does not fit in the store's day (429 until midnight UTC), not another store's", async () => {
    const first = await send(
      runtime,
      heavy,
      bulk('heavy-sender.example', { recipients: recipients(2, 'cap.example') }),
    );
    expect(first.status).toBe(200);
    const over = await send(
      runtime,
      heavy,
      bulk('heavy-sender.example', { recipients: recipients(2, 'cap2.example') }),
      {
        raw: true,
      },
    );
    expect(over.status).toBe(429);
    expect(over.body.message).toBe(
      "The store's daily cap of 3 marketing emails does not leave room for 2 more today; retry after midnight UTC",
    );
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    // What still fits goes; another store has its own day.
    expect(
      (await send(runtime, heavy, bulk('heavy-sender.example', { recipients: recipients(1, 'cap3.example') }))).status,
    ).toBe(200);
    expect(
      (await send(runtime, other, bulk('other-sender.example', { recipients: recipients(3, 'cap4.example') }))).status,
    ).toBe(200);
  });

  it("takes a store's own cap over the deployment's, and back", async () => {
    const big = await newStore('Daily cap own');
    await registerDomain(runtime, big, 'big-sender.example');
    await setStoreDailySendCap(storeAdminDeps(), big.storeId, 5);
    // Five fit where the deployment's cap (3) would refuse them.
    const five = await send(runtime, big, bulk('big-sender.example', { recipients: recipients(5, 'own.example') }));
    expect(five.status).toBe(200);
    const sixth = await send(runtime, big, bulk('big-sender.example', { recipients: recipients(1, 'own2.example') }), {
      raw: true,
    });
    expect(sixth.status).toBe(429);
    expect(sixth.body.message).toMatch(/^The store's daily cap of 5 marketing emails/);
    await expect(setStoreDailySendCap(storeAdminDeps(), big.storeId, -1)).rejects.toThrow(/whole number/);
    await expect(setStoreDailySendCap(storeAdminDeps(), 'st_missing', 10)).rejects.toThrow(/No store st_missing/);
  });
});
