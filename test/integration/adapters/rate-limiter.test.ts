import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoRateLimiter } from '#shared/adapters/dynamodb/rate-limiter.ts';

let runtime: LocalRuntime;
beforeAll(async () => {
  runtime = await startLocalRuntime({ gateways: false, pollers: false, logLevel: 'ERROR' });
});
afterAll(async () => {
  await runtime?.stop();
});

/** A clock the test moves; the limiter's windows follow it. */
const manualClock = (start: number) => {
  let now = start;
  return { now: () => now, set: (ms: number) => (now = ms) };
};

const updates = () => runtime.dynamodbCalls().UpdateItem ?? 0;

const takeMany = async (limiter: ReturnType<typeof dynamoRateLimiter>, key: string, count: number) => {
  const verdicts = await Promise.all(Array.from({ length: count }, () => limiter.take(key, 40)));
  return verdicts.filter((v) => v.allowed).length;
};

describe('DynamoDB rate limiter (40 per second per key, shared by instances)', () => {
  it('lets exactly the limit through in one second across two instances racing, and refuses the rest', async () => {
    const clock = manualClock(1_000_000_000_000);
    const [a, b] = [dynamoRateLimiter(clock), dynamoRateLimiter(clock)];
    const [fromA, fromB] = await Promise.all([takeMany(a, 'race', 60), takeMany(b, 'race', 60)]);
    expect(fromA + fromB).toBe(40);
    const refused = await a.take('race', 40);
    expect(refused).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(a.isSaturated('race')).toBe(true);
  });

  it('opens a new window in the next second', async () => {
    const clock = manualClock(1_000_000_100_000);
    const limiter = dynamoRateLimiter(clock);
    expect(await takeMany(limiter, 'next', 45)).toBe(40);
    clock.set(1_000_000_101_000);
    expect(limiter.isSaturated('next')).toBe(false);
    expect(await takeMany(limiter, 'next', 10)).toBe(10);
  });

  it('costs a busy key far fewer writes than requests once it has a history, and a quiet key one write each', async () => {
    const clock = manualClock(1_000_000_200_000);
    const limiter = dynamoRateLimiter(clock);
    // Second 1: 20 requests one after another (each instance serves one request at a time, as a Lambda does).
    for (let i = 0; i < 20; i++) expect((await limiter.take('busy', 40)).allowed).toBe(true);
    clock.set(1_000_000_201_000);
    const before = updates();
    for (let i = 0; i < 20; i++) expect((await limiter.take('busy', 40)).allowed).toBe(true);
    // Leases of 10 (a quarter of the limit): 2 writes for 20 requests.
    expect(updates() - before).toBe(2);

    const quietBefore = updates();
    expect((await limiter.take('quiet', 40)).allowed).toBe(true);
    expect(updates() - quietBefore).toBe(1);
  });

  it('never spends a token after the second it was claimed for', async () => {
    const clock = manualClock(1_000_000_300_000);
    const limiter = dynamoRateLimiter(clock);
    for (let i = 0; i < 12; i++) await limiter.take('edge', 40);
    clock.set(1_000_000_301_000);
    await limiter.take('edge', 40); // leases 10 for the new second, keeps 9
    clock.set(1_000_000_302_000);
    // The 9 tokens of the previous second are gone: another instance can still take the whole new second.
    const other = dynamoRateLimiter(clock);
    expect(await takeMany(other, 'edge', 50)).toBe(40);
    expect((await limiter.take('edge', 40)).allowed).toBe(false);
  });
});
