/**
 * The event history on DynamoDB (the local emulator): each pack an item of its own whose write costs the pack's size,
 * a pack written again the same item, and the minute items written before (a set of packs each) still read beside.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamo } from '#shared/adapters/aws-clients.ts';
import { coalescedPuts } from '#shared/adapters/dynamodb/coalesced.ts';
import { dynamoEventHistory } from '#shared/adapters/dynamodb/event-history.repository.ts';
import { itemMeta, keys } from '#shared/adapters/dynamodb/keys.ts';
import { tableName } from '#shared/adapters/dynamodb/table.ts';
import { PutCommand, QueryCommand } from '#shared/adapters/dynamodb-client.ts';
import { HistoryBuffer, type HistoryEvent, readHistory } from '#shared/domain/ingest/event-history.ts';
import { packEvents } from '#shared/domain/ingest/history-pack.ts';
import type { IngestMessage } from '#shared/domain/ingest/model.ts';

let runtime: LocalRuntime;
beforeAll(async () => {
  runtime = await startLocalRuntime({ gateways: false, pollers: false, logLevel: 'ERROR' });
});
afterAll(async () => {
  await runtime?.stop();
});

const DAY = '2026-11-01';
const START = Date.UTC(2026, 10, 1, 10, 0);
const NOW = START + 3_600_000;
const clock = { now: () => NOW };
const expiresAt = Math.floor(NOW / 1000) + 86_400;

const message = (storeId: string, n: number, at: number): IngestMessage => ({
  v: 1,
  storeId,
  sourceId: `src-${n}`,
  endpoint: 'page/viewed',
  interface: 'general',
  acceptedAt: at,
  data: { email: `c${n}@example.com`, url: `https://shop.example/p/${n}` },
});

const dayItems = async (storeId: string) => {
  const { Items } = await dynamo().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.eventHistory(storeId, DAY).pk },
      ReturnConsumedCapacity: 'TOTAL',
    }),
  );
  return Items ?? [];
};

const readAll = async (storeId: string) => {
  const events: HistoryEvent[] = [];
  for await (const page of readHistory(dynamoEventHistory(clock), storeId, START - 3_600_000, NOW))
    events.push(...page);
  return events.map((e) => e.sourceId);
};

describe('dynamoEventHistory', () => {
  it('puts each batch’s pack as an item of its own, one write unit for a small pack, the same pack the same item', async () => {
    const storeId = `st_hist_${Date.now()}`;
    const history = dynamoEventHistory(clock);
    const buffer = new HistoryBuffer();
    // Twenty batches of one page view each within one minute: twenty items, none growing.
    for (let n = 0; n < 20; n++) {
      buffer.add(message(storeId, n, START + n * 1000));
      await buffer.flush({ history, keepDays: 1 });
    }
    const items = await dayItems(storeId);
    expect(items).toHaveLength(20);
    for (const item of items) {
      expect(item).toMatchObject({ ...itemMeta('eventHistory'), expiresAt: expect.any(Number) });
      expect(String(item.sk)).toMatch(/^PACK#\d{15}#[\w-]{16}$/);
      expect((item.packs as Set<Uint8Array>).size).toBe(1);
    }
    // What the write of the last one cost (written again as it is: the units of its size).
    const rewrite = await dynamo().send(
      new PutCommand({ TableName: tableName(), Item: items[19], ReturnConsumedCapacity: 'TOTAL' }),
    );
    expect(rewrite.ConsumedCapacity?.CapacityUnits).toBe(1);
    // A redelivered batch packs to the same bytes: the same item, written again.
    buffer.add(message(storeId, 3, START + 3000));
    await buffer.flush({ history, keepDays: 1 });
    expect(await dayItems(storeId)).toHaveLength(20);
    expect(await readAll(storeId)).toEqual(Array.from({ length: 20 }, (_, n) => `src-${n}`));
  });

  it('puts a batch’s packs of several stores together (one BatchWriteItem through coalesced puts), each read back', async () => {
    const stores = [0, 1, 2].map((i) => `st_hist_many_${i}_${Date.now()}`);
    const history = dynamoEventHistory(clock, coalescedPuts());
    const buffer = new HistoryBuffer();
    for (const [i, storeId] of stores.entries()) {
      for (let n = 0; n <= i; n++) buffer.add(message(storeId, n, START + n * 1000));
    }
    const before = runtime.dynamodbCalls();
    expect(await buffer.flush({ history, keepDays: 1 })).toBe(3);
    const after = runtime.dynamodbCalls();
    expect((after.BatchWriteItem ?? 0) - (before.BatchWriteItem ?? 0)).toBe(1);
    expect((after.PutItem ?? 0) - (before.PutItem ?? 0)).toBe(0);
    for (const [i, storeId] of stores.entries()) {
      const items = await dayItems(storeId);
      expect(items).toHaveLength(1);
      expect((items[0]?.packs as Set<Uint8Array> | undefined)?.size).toBe(1);
      expect(await readAll(storeId)).toEqual(Array.from({ length: i + 1 }, (_, n) => `src-${n}`));
    }
  });

  it('reads the minute items written before beside the packs written now, each event once', async () => {
    const storeId = `st_hist_old_${Date.now()}`;
    const history = dynamoEventHistory(clock);
    const event = (n: number, at: number) => {
      const { v: _v, ...rest } = message(storeId, n, at);
      return rest;
    };
    // The layout before: a minute's item holding a set of packs, and a pack the minute's item could not take.
    const minute = START;
    const old = await Promise.all(
      [[event(0, minute + 1)], [event(1, minute + 2), event(2, minute + 3)]].map((group) => packEvents(group)),
    );
    const overflow = await packEvents([event(3, minute + 4)]);
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.eventHistoryMinute(storeId, DAY, minute),
          ...itemMeta('eventHistory'),
          packs: new Set(old.flat().map((p) => p.bytes)),
          expiresAt,
        },
      }),
    );
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.eventHistoryMinute(storeId, DAY, minute, { at: minute + 4, sourceId: 'src-3' }),
          ...itemMeta('eventHistory'),
          packs: new Set(overflow.map((p) => p.bytes)),
          expiresAt,
        },
      }),
    );
    // After the deploy: the same minute gets new packs, one replaying an event the old layout already holds.
    const buffer = new HistoryBuffer();
    for (const n of [2, 4]) buffer.add(message(storeId, n, minute + 1 + n));
    await buffer.flush({ history, keepDays: 1 });
    buffer.add(message(storeId, 5, minute + 30_000));
    await buffer.flush({ history, keepDays: 1 });
    expect(await dayItems(storeId)).toHaveLength(4);
    expect(await readAll(storeId)).toEqual(['src-0', 'src-1', 'src-2', 'src-3', 'src-4', 'src-5']);
  });
});
