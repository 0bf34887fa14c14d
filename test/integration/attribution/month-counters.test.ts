/**
 * Month counters in the table (docs/attribution.md, "The API"): every count is added to its day and its month, a new
 * store's months are kept from the start, `GET /api/v1/stats` over a year answers the same totals as its days with a
 * per-month series (per day up to 92 days), and a store counted before months were kept answers from its days until
 * `rollUpStoreStats` (the admin command `store rollup-stats`) has rebuilt its months.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamo } from '#shared/adapters/aws-clients.ts';
import { dynamoAttribution } from '#shared/adapters/dynamodb/attribution.ts';
import { keys } from '#shared/adapters/dynamodb/keys.ts';
import { tableName } from '#shared/adapters/dynamodb/table.ts';
import { DeleteCommand, PutCommand } from '#shared/adapters/dynamodb-client.ts';
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

describe('month counters', () => {
  it('keeps a new store’s counts per day and per month, and answers a year per month with the days’ totals', async () => {
    const store = await newStore('Month counters');
    const attribution = dynamoAttribution();
    expect(await attribution.monthsKept(store.storeId)).toBe(true);
    for (let i = 0; i < DAYS; i += 20) {
      await Promise.all(
        Array.from({ length: 20 }, (_, k) =>
          attribution.add(store.storeId, ['store'], day(today - (i + k) * DAY_MS), countsOn(i + k)),
        ),
      );
    }
    const months = await attribution.months(store.storeId, 'store', '0000-01', '9999-12');
    expect(months.length).toBeGreaterThanOrEqual(13);
    expect(months.reduce((n, m) => n + (m.counts.emailed ?? 0), 0)).toBe(expected('0000-01-01', '9999-12-31').emailed);
    // A range of days never reads a month.
    const days = await attribution.days(store.storeId, 'store', '0000-01-01', '9999-12-31');
    expect(days.map((d) => d.day)).toEqual(daysCounted('0000-01-01', '9999-12-31'));

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

  it('answers a store counted before months from its days, the same after its months are rebuilt', async () => {
    const store = await newStore('Counted before months');
    // What the previous version left: day items only, and no mark that the months are kept.
    await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: keys.statsMonthsKept(store.storeId) }));
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
    }
    const attribution = dynamoAttribution();
    expect(await attribution.monthsKept(store.storeId)).toBe(false);
    expect(await attribution.months(store.storeId, 'store', '0000-01', '9999-12')).toEqual([]);
    const before = await stats(store, year);
    expect(before).toMatchObject(expected(year.from, year.to));

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
    expect(scopes).toEqual(['store', `flow#${flow.id}`]);
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
    expect(await attribution.monthsKept(store.storeId)).toBe(true);
    expect((await attribution.months(store.storeId, 'store', '0000-01', '9999-12')).length).toBeGreaterThanOrEqual(13);
    expect(await stats(store, year)).toEqual(before);
  });
});
