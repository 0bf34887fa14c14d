/**
 * The counters queue through the local runtime (docs/attribution.md, "What is counted, and where"): the counters
 * worker sums the messages the workers' batches queue into each counter, and a message that reaches the queue twice
 * (SQS delivered it again, or a worker sent it again after a send that failed but had arrived) counts once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoAttribution } from '#shared/adapters/dynamodb/attribution.ts';
import { sqsCountsQueue } from '#shared/adapters/sqs/counts-queue.ts';
import type { CountsMessage } from '#shared/domain/attribution/model.ts';
import { eventually, newStore, type TestStore } from '#test/support/local.ts';

let runtime: LocalRuntime;
let store: TestStore;
const day = new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
  store = await newStore('Counters queue shop');
});

afterAll(async () => {
  await runtime?.stop();
});

describe('the counters queue', () => {
  it('adds every message once, a message queued twice included, to the day and its month', async () => {
    const queue = sqsCountsQueue();
    const message = (id: string, emailed: number): CountsMessage => ({
      id,
      counts: [
        [store.storeId, 'store', day, { emailed }],
        [store.storeId, 'events', day, { 'carts/create': 1 }],
      ],
    });
    const id = `it-${Date.now()}`;
    await Promise.all([
      queue.send(message(`${id}-a`, 1)),
      queue.send(message(`${id}-b`, 2)),
      // The same message again (same id): it must not count a second time.
      queue.send(message(`${id}-b`, 2)),
      queue.send(message(`${id}-c`, 4)),
    ]);

    const attribution = dynamoAttribution();
    const counted = await eventually('the three messages counted', async () => {
      const [days] = await Promise.all([attribution.days(store.storeId, 'store', day, day)]);
      return days[0]?.counts.emailed === 7 ? days : undefined;
    });
    expect(counted).toEqual([{ day, counts: { emailed: 7 } }]);
    // Every message is handled by now: a duplicate that had counted would show here.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await attribution.days(store.storeId, 'store', day, day)).toEqual([{ day, counts: { emailed: 7 } }]);
    expect(await attribution.months(store.storeId, 'store', day.slice(0, 7), day.slice(0, 7))).toEqual([
      { month: day.slice(0, 7), counts: { emailed: 7 } },
    ]);
    expect(await attribution.days(store.storeId, 'events', day, day)).toEqual([{ day, counts: { 'carts/create': 3 } }]);
  });
});
