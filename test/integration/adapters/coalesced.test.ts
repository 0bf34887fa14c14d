/**
 * Reads and puts gathered per turn of the event loop (`coalesced.ts`, the flow worker's): what is asked for together
 * goes out in one call, each caller gets exactly its own answer (a missing item is undefined, a repeated key is read
 * once and each caller gets its own copy), a put resolves once its item is written, the last put of a key wins, a call
 * refused for one bad item fails only that item's caller, and a call failing for a moment fails every caller in it.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { coalescedGets, coalescedPuts } from '#shared/adapters/dynamodb/coalesced.ts';
import { getItem } from '#shared/adapters/dynamodb/table.ts';
import { addClientMiddleware } from '#test/support/aws-faults.ts';
import { dynamodbCallsDuring } from '#test/support/local.ts';

let runtime: LocalRuntime;
beforeAll(async () => {
  runtime = await startLocalRuntime({ gateways: false, pollers: false, logLevel: 'ERROR' });
});
afterAll(async () => {
  await runtime?.stop();
});

const pkOf = () => `TEST#${randomUUID()}`;

describe('coalesced puts and gets', () => {
  it('puts what is asked for in one turn in one call, each caller resolved once its items are written', async () => {
    const pk = pkOf();
    const puts = coalescedPuts();
    const calls = await dynamodbCallsDuring(runtime, () =>
      Promise.all([
        puts.put([{ pk, sk: 'a', n: 1 }]),
        puts.put([
          { pk, sk: 'b', n: 2 },
          { pk, sk: 'c', n: 3 },
        ]),
        // The same key again in the same turn: one write, the last asked for.
        puts.put([{ pk, sk: 'a', n: 4 }]),
      ]),
    );
    expect(calls).toEqual({ BatchWriteItem: 1 });
    expect((await getItem({ pk, sk: 'a' }))?.n).toBe(4);
    expect((await getItem({ pk, sk: 'b' }))?.n).toBe(2);
    expect((await getItem({ pk, sk: 'c' }))?.n).toBe(3);
    // Alone in its turn: a plain put.
    expect(await dynamodbCallsDuring(runtime, () => puts.put([{ pk, sk: 'd', n: 5 }]))).toEqual({ PutItem: 1 });
    expect((await getItem({ pk, sk: 'd' }))?.n).toBe(5);
  });

  it('a batch DynamoDB refuses for one bad item fails only that item’s caller: the others are written alone', async () => {
    const pk = pkOf();
    const puts = coalescedPuts();
    let results: PromiseSettledResult<void>[] = [];
    const calls = await dynamodbCallsDuring(runtime, async () => {
      results = await Promise.allSettled([
        puts.put([{ pk, sk: 'a', n: 1 }]),
        // Over DynamoDB's 400 KB item limit (another store's oversized record, say): the whole batch is refused.
        puts.put([{ pk, sk: 'big', data: 'x'.repeat(410_000) }]),
        // No sort key: refused too.
        puts.put([{ pk, n: 2 }]),
        puts.put([{ pk, sk: 'c', n: 3 }]),
      ]);
    });
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    const refused = results[1] as PromiseRejectedResult;
    expect((refused.reason as Error).name).toBe('ValidationException');
    expect((await getItem({ pk, sk: 'a' }))?.n).toBe(1);
    expect((await getItem({ pk, sk: 'c' }))?.n).toBe(3);
    expect(await getItem({ pk, sk: 'big' })).toBeUndefined();
    // The refused batch, then each request alone.
    expect(calls).toEqual({ BatchWriteItem: 1, PutItem: 4 });
  });

  it('fails every caller of a call that fails for a moment (each retries)', async () => {
    const pk = pkOf();
    const throttled = Object.assign(new Error('Rate of requests exceeds the allowed throughput'), {
      name: 'ThrottlingException',
      $metadata: { httpStatusCode: 400 },
    });
    const remove = addClientMiddleware('dynamodb', () => async () => {
      throw throttled;
    });
    try {
      const puts = coalescedPuts();
      const results = await Promise.allSettled([puts.put([{ pk, sk: 'a', n: 1 }]), puts.put([{ pk, sk: 'b', n: 2 }])]);
      expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    } finally {
      remove();
    }
    expect(await getItem({ pk, sk: 'a' })).toBeUndefined();
  });

  it('reads what is asked for in one turn in one call, each caller its own item or undefined', async () => {
    const pk = pkOf();
    await coalescedPuts().put([
      { pk, sk: 'a', n: 1 },
      { pk, sk: 'b', n: 2 },
    ]);
    const gets = coalescedGets();
    let answers: (Record<string, unknown> | undefined)[] = [];
    const calls = await dynamodbCallsDuring(runtime, async () => {
      answers = await Promise.all([
        gets.get({ pk, sk: 'a' }),
        gets.get({ pk, sk: 'b' }),
        gets.get({ pk, sk: 'missing' }),
        gets.get({ pk, sk: 'a' }),
      ]);
    });
    expect(calls).toEqual({ BatchGetItem: 1 });
    expect(answers.map((item) => item?.n)).toEqual([1, 2, undefined, 1]);
    // A key asked for twice: each caller has its own copy.
    expect(answers[0]).not.toBe(answers[3]);
    // Alone in its turn: a plain (consistent) GetItem, which sees a write made just before.
    await coalescedPuts().put([{ pk, sk: 'a', n: 7 }]);
    let alone: Record<string, unknown> | undefined;
    expect(
      await dynamodbCallsDuring(runtime, async () => {
        alone = await gets.get({ pk, sk: 'a' });
      }),
    ).toEqual({ GetItem: 1 });
    expect(alone?.n).toBe(7);
  });

  it('reads more keys than one BatchGetItem takes', async () => {
    const pk = pkOf();
    const items = Array.from({ length: 130 }, (_, i) => ({ pk, sk: `k${String(i).padStart(3, '0')}`, n: i }));
    await coalescedPuts().put(items);
    const gets = coalescedGets();
    const answers = await Promise.all(items.map((item) => gets.get({ pk: item.pk, sk: item.sk })));
    expect(answers.map((item) => item?.n)).toEqual(items.map((item) => item.n));
  });
});
