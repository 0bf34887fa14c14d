/**
 * Counters per day in the table (docs/attribution.md, "The API"): every count is added to its day alone (no month
 * item since issue 16), `GET /api/v1/stats` over a year answers the same totals as its days with a per-month series
 * (per day up to 92 days), and what earlier versions stored (month items and their mark, a flow's email steps counted
 * in scopes of their own until `rollUpStoreStats`, the admin command `store rollup-stats`) is answered the same.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamo } from '#shared/adapters/aws-clients.ts';
import { dynamoAttribution } from '#shared/adapters/dynamodb/attribution.ts';
import { keys } from '#shared/adapters/dynamodb/keys.ts';
import { queryStoredItems } from '#shared/adapters/dynamodb/query.ts';
import { tableName } from '#shared/adapters/dynamodb/table.ts';
import { PutCommand } from '#shared/adapters/dynamodb-client.ts';
import { rollUpStoreStats } from '#shared/domain/attribution/attribute.ts';
import { rollupDeps } from '#shared/wiring/attribution.ts';
import { presetFlow } from '#test/integration/flows/engine-support.ts';
import { newStore, type TestStore } from '#test/support/local.ts';
import { api } from '#test/support/webhooks.ts';

const DAY_MS = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** 400 days up to today: day i has i % 5 emails and, every fourth day, a recovered order of 10 EUR. */
const DAYS = 400;
const countsOn = (i: number) => ({
  emailed: i % 5,
  ...(i % 4 === 0 ? { recoveredOrders: 1, recoveredRevenue_EUR: 10 } : {}),
});

let runtime: LocalRuntime;
const today = Date.now();
const year = { from: day(today - 364 * DAY_MS), to: day(today) };

/** What the range must answer: its days summed. */
const expected = (from: string, to: string) => {
  let emailed = 0;
  let orders = 0;
  for (let i = 0; i < DAYS; i++) {
    const d = day(today - i * DAY_MS);
    if (d < from || d > to) continue;
    emailed += i % 5;
    if (i % 4 === 0) orders++;
  }
  return { emailed, recovered: { orders, revenue: orders > 0 ? { EUR: (orders * 10).toFixed(2) } : {} } };
};

/** The days of the range that have any count. */
const daysCounted = (from: string, to: string) =>
  Array.from({ length: DAYS }, (_, i) => i)
    .filter((i) => i % 5 !== 0 || i % 4 === 0)
    .map((i) => day(today - i * DAY_MS))
    .filter((d) => d >= from && d <= to)
    .sort();

interface StatsData {
  emailed: number;
  recovered: { orders: number; revenue: Record<string, string> };
  days?: { day: string }[];
  months?: { month: string; emailed: number }[];
}

const stats = async (store: TestStore, range: { from: string; to: string }) => {
  const answer = await api(runtime, store.apiKey, 'GET', `/api/v1/stats?from=${range.from}&to=${range.to}`);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return (answer.body as { data: StatsData }).data;
};

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
}, 120_000);

afterAll(async () => {
  await runtime?.stop();
});

/** Every item of a scope's counter partition, by sort key. */
const storedKeys = async (storeId: string, scope: string) =>
  (
    await queryStoredItems({
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.stats(storeId, scope, '').pk },
    })
  ).map((item) => String(item.sk));

describe('counters per day', () => {
  it('keeps a store’s counts on their days alone, and answers a year per month with the days’ totals', async () => {
    const store = await newStore('Day counters');
    const attribution = dynamoAttribution();
    for (let i = 0; i < DAYS; i += 20) {
      await Promise.all(
        Array.from({ length: 20 }, (_, k) =>
          attribution.add(store.storeId, ['store'], day(today - (i + k) * DAY_MS), countsOn(i + k)),
        ),
      );
    }
    // One item per day counted, none per month (a count costs one write per scope).
    expect(await storedKeys(store.storeId, 'store')).toEqual(daysCounted('0000-01-01', '9999-12-31'));

    const whole = await stats(store, year);
    expect(whole).toMatchObject(expected(year.from, year.to));
    expect(whole.days).toBeUndefined();
    expect(whole.months?.map((m) => m.month)).toEqual([
      ...new Set(daysCounted(year.from, year.to).map((d) => d.slice(0, 7))),
    ]);
    expect(whole.months?.reduce((n, m) => n + m.emailed, 0)).toBe(whole.emailed);

    const month = { from: day(today - 29 * DAY_MS), to: day(today) };
    const recent = await stats(store, month);
    expect(recent).toMatchObject(expected(month.from, month.to));
    expect(recent.months).toBeUndefined();
    expect(recent.days?.map((d) => d.day)).toEqual(daysCounted(month.from, month.to));
  });

  it('answers what earlier versions stored (month items, steps in scopes of their own) from the days', async () => {
    const store = await newStore('Counted before issue 16');
    // What the previous version left: each count on its day and on its month, and the mark that the months are kept.
    const months = new Map<string, Record<string, number>>();
    for (let i = 0; i < DAYS; i++) {
      const counts = countsOn(i);
      if (counts.emailed === 0 && !('recoveredOrders' in counts)) continue;
      await dynamo().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...keys.stats(store.storeId, 'store', day(today - i * DAY_MS)),
            entity: 'stats',
            schema: 1,
            ...counts,
          },
        }),
      );
      const month = months.get(day(today - i * DAY_MS).slice(0, 7)) ?? {};
      for (const [name, n] of Object.entries(counts)) month[name] = (month[name] ?? 0) + n;
      months.set(day(today - i * DAY_MS).slice(0, 7), month);
    }
    for (const [month, counts] of months) {
      await dynamo().send(
        new PutCommand({
          TableName: tableName(),
          Item: { ...keys.statsMonth(store.storeId, 'store', month), entity: 'stats', schema: 1, ...counts },
        }),
      );
    }
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keys.statsMonthsKept(store.storeId), entity: 'stats', schema: 1 },
      }),
    );
    const attribution = dynamoAttribution();
    // Counted after the deploy: on its day alone.
    await attribution.add(store.storeId, ['store'], day(today), { emailed: 1000 });
    const before = await stats(store, year);
    const { emailed, ...rest } = expected(year.from, year.to);
    expect(before).toMatchObject({ emailed: emailed + 1000, ...rest });
    expect(before.months?.reduce((n, m) => n + m.emailed, 0)).toBe(emailed + 1000);
    expect((await stats(store, { from: day(today), to: day(today) })).emailed).toBe(1000);

    // And its flow's email step counted in a scope of its own, as the previous version did.
    const flow = await presetFlow(runtime, store, 'abandoned_cart');
    const step = flow.steps.find((s) => s.type === 'email')?.id ?? 'missing';
    const legacyStep = `step#${flow.id}#${step}`;
    for (const [i, emailed] of [
      [3, 2],
      [200, 5],
    ] as const) {
      await dynamo().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...keys.stats(store.storeId, legacyStep, day(today - i * DAY_MS)),
            entity: 'stats',
            schema: 1,
            emailed,
          },
        }),
      );
    }

    const { scopes, stepsMoved } = await rollUpStoreStats(rollupDeps(), store.storeId);
    expect(scopes).toEqual([`flow#${flow.id}`]);
    expect(stepsMoved).toBe(1);
    expect(await attribution.days(store.storeId, legacyStep, '0000-01-01', '9999-12-31')).toEqual([]);
    const flowYear = await api(
      runtime,
      store.apiKey,
      'GET',
      `/api/v1/flows/${flow.id}/stats?from=${year.from}&to=${year.to}`,
    );
    const flowData = (flowYear.body as { data: { emailed: number; steps: { stepId: string; emailed: number }[] } })
      .data;
    // The step's counts are its own, not the flow's (which counted nothing of its own in that version).
    expect(flowData.steps.find((s) => s.stepId === step)?.emailed).toBe(7);
    expect(flowData.emailed).toBe(0);
    expect(await stats(store, year)).toEqual(before);
  });
});
