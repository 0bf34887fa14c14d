/**
 * The store's import slot on the embedded DynamoDB (`dynamoStoreSlot`): one claim per store per interval, and a
 * release that frees only the claim it is given (a start that queued nothing gives its slot back; a later claim stays).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoStoreSlot } from '#shared/adapters/dynamodb/store-slot.ts';

let runtime: LocalRuntime;
beforeAll(async () => {
  runtime = await startLocalRuntime({ gateways: false, pollers: false, logLevel: 'ERROR' });
});
afterAll(async () => {
  await runtime?.stop();
});

const newStore = () => `st_${randomUUID().replaceAll('-', '').slice(0, 20)}`;

describe('the import slot', () => {
  it('is claimed once per interval, and freed by a release of that claim', async () => {
    let now = 1_700_000_000_000;
    const throttle = dynamoStoreSlot({ now: () => now }, 'importSlot');
    const storeId = newStore();

    const first = await throttle.claim(storeId, 10);
    expect(first).toEqual({ claimed: true, claimId: expect.any(String) });
    expect(await throttle.claim(storeId, 10)).toEqual({ claimed: false, retryAfterSeconds: 10 });

    if (!first.claimed) throw new Error('unreachable');
    await throttle.release(storeId, first.claimId);
    const second = await throttle.claim(storeId, 10);
    expect(second.claimed).toBe(true);

    // A stale release (the first claim's, again, at the same instant) leaves the second claim in place.
    await throttle.release(storeId, first.claimId);
    expect((await throttle.claim(storeId, 10)).claimed).toBe(false);

    // A lapsed claim is taken over; releasing the lapsed one then frees nothing.
    now += 10_000;
    const third = await throttle.claim(storeId, 10);
    expect(third.claimed).toBe(true);
    if (!second.claimed) throw new Error('unreachable');
    await throttle.release(storeId, second.claimId);
    expect((await throttle.claim(storeId, 10)).claimed).toBe(false);
  });
});
