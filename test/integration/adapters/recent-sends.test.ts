/**
 * Recent marketing sends per contact on the embedded DynamoDB (`dynamoRecentSends`, docs/smart-sending.md): of several
 * workers taking a place for one address at once under a cap of one, exactly one gets it; a retried take of the same
 * send is no second send; a release gives the place back; a campaign records each address once; and old sends go.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoRecentSends } from '#shared/adapters/dynamodb/recent-sends.ts';
import { capVerdict, WEEK_MS } from '#shared/domain/email/smart-sending.ts';

let runtime: LocalRuntime;
beforeAll(async () => {
  runtime = await startLocalRuntime({ gateways: false, pollers: false, logLevel: 'ERROR' });
});
afterAll(async () => {
  await runtime?.stop();
});

const newStore = () => `st_${randomUUID().replaceAll('-', '').slice(0, 20)}`;
const NOW = 1_764_000_000_000;
const oneIn16Hours = (times: readonly number[]) => capVerdict({ minHoursBetween: 16 }, times, NOW).allowed;

describe('recent sends', () => {
  it('lets one of several workers at once take the place under a cap of one, and counts it once', async () => {
    const storeId = newStore();
    const workers = [dynamoRecentSends(), dynamoRecentSends(), dynamoRecentSends(), dynamoRecentSends()];
    const takes = await Promise.all(
      workers.map((worker, i) => worker.take(storeId, 'Ada@Example.com', { id: `run-${i}#e1`, at: NOW }, oneIn16Hours)),
    );
    expect(takes.filter((t) => t.taken)).toHaveLength(1);
    expect(await workers[0]?.get(storeId, 'ada@example.com')).toEqual([NOW]);
    // The refused ones saw the winner's send.
    expect(takes.filter((t) => !t.taken).every((t) => t.times.length === 1)).toBe(true);
  });

  it('answers a retried take of the same send as taken, and a release gives the place back', async () => {
    const storeId = newStore();
    const sends = dynamoRecentSends();
    expect((await sends.take(storeId, 'bo@example.com', { id: 'run-1#e1', at: NOW }, oneIn16Hours)).taken).toBe(true);
    expect((await sends.take(storeId, 'bo@example.com', { id: 'run-1#e1', at: NOW }, oneIn16Hours)).taken).toBe(true);
    expect((await sends.take(storeId, 'bo@example.com', { id: 'run-2#e1', at: NOW }, oneIn16Hours)).taken).toBe(false);
    await sends.release(storeId, 'bo@example.com', 'run-1#e1');
    expect(await sends.get(storeId, 'bo@example.com')).toEqual([]);
    expect((await sends.take(storeId, 'bo@example.com', { id: 'run-2#e1', at: NOW }, oneIn16Hours)).taken).toBe(true);
  });

  it('records a campaign once per address, leaves its own sends out when asked, and forgets sends older than a week', async () => {
    const storeId = newStore();
    const sends = dynamoRecentSends();
    await sends.take(storeId, 'cy@example.com', { id: 'run-1#e1', at: NOW - WEEK_MS + 60_000 }, () => true);
    await sends.record(storeId, ['cy@example.com', 'di@example.com'], { id: 'cmp_1', at: NOW });
    await sends.record(storeId, ['cy@example.com', 'di@example.com'], { id: 'cmp_1', at: NOW + 5_000 });
    const seen = await sends.among(storeId, ['cy@example.com', 'di@example.com', 'ed@example.com']);
    expect(Object.fromEntries(seen)).toEqual({
      'cy@example.com': [NOW - WEEK_MS + 60_000, NOW],
      'di@example.com': [NOW],
    });
    expect(Object.fromEntries(await sends.among(storeId, ['di@example.com'], 'cmp_1'))).toEqual({
      'di@example.com': [],
    });
    // A week and more after the flow's send, the next write keeps only what is within the week.
    await sends.record(storeId, ['cy@example.com'], { id: 'cmp_2', at: NOW + 2 * 60_000 });
    expect(await sends.get(storeId, 'cy@example.com')).toEqual([NOW, NOW + 2 * 60_000]);
    // Another store's sends are its own.
    expect(await sends.get(newStore(), 'cy@example.com')).toEqual([]);
  });
});
