/**
 * The event history's daily compaction on DynamoDB (the local emulator): a trickle store's days, written by the worker's
 * code an item per event (and an old minute item), compacted through the timer worker's use case; a flow backtest over
 * them answers the same before, after, and after a crash between the compaction's puts and its deletes.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamo } from '#shared/adapters/aws-clients.ts';
import { batchPut } from '#shared/adapters/dynamodb/batch.ts';
import { dynamoCompactableHistory, dynamoEventHistory } from '#shared/adapters/dynamodb/event-history.repository.ts';
import { itemMeta, keys } from '#shared/adapters/dynamodb/keys.ts';
import { tableName } from '#shared/adapters/dynamodb/table.ts';
import { QueryCommand } from '#shared/adapters/dynamodb-client.ts';
import { backtestFlow } from '#shared/domain/backtest/backtest.ts';
import type { BacktestAnswer } from '#shared/domain/backtest/model.ts';
import type { Flow, FlowStep } from '#shared/domain/flows/flow.ts';
import { HistoryBuffer, type HistoryEvent, historyDay } from '#shared/domain/ingest/event-history.ts';
import { type CompactHistoryDeps, compactHistoryDay } from '#shared/domain/ingest/history-compaction.ts';
import { packEvents } from '#shared/domain/ingest/history-pack.ts';
import { type FireTimerDeps, fireTimer } from '#shared/domain/timers/fire-timer.ts';
import { backtestFakes } from '#test/support/memory/backtest.ts';
import { customerOf, emailStep, flowOf } from '#test/support/memory/flow-engine.ts';

let runtime: LocalRuntime;
beforeAll(async () => {
  runtime = await startLocalRuntime({ gateways: false, pollers: false, logLevel: 'ERROR' });
});
afterAll(async () => {
  await runtime?.stop();
});

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY_MS = 24 * HOUR;
const T0 = Date.UTC(2026, 9, 1);
const DAYS = ['2026-10-01', '2026-10-02', '2026-10-03'];
const NOW = T0 + 5 * DAY_MS;
const clock = { now: () => NOW };

const paid: FlowStep = {
  type: 'exit_if',
  id: 'paid',
  condition: { match: 'all', conditions: [{ field: 'activity.order_paid_since_trigger', op: 'exists' }] },
};
const cartFlow = (): Flow =>
  flowOf('fl_cart', 'abandoned_cart', {
    enabled: false,
    consent: 'subscribed',
    steps: [
      paid,
      emailStep('first', { subject: 'Your cart, {{ contact.first_name }}' }),
      { type: 'wait', id: 'a-day', seconds: 86_400 },
      { ...paid, id: 'paid-again' },
      emailStep('second', { subject: 'Still thinking?' }),
    ],
  });

/** Three days of a store's events: carts (some updated), page views and paid orders, some paying an emailed cart. */
const storeEvents = (storeId: string): HistoryEvent[] => {
  const events: HistoryEvent[] = [];
  let n = 0;
  const add = (at: number, endpoint: string, data: Record<string, unknown>) =>
    events.push({ storeId, sourceId: `src-${++n}`, endpoint, interface: 'general', acceptedAt: at, data });
  for (let i = 0; i < 150; i++) {
    const at = T0 + i * 27 * MIN;
    const email = `c${i % 23}@example.com`;
    const token = `cart-${i}`;
    add(at, 'carts/create', {
      token,
      email,
      checkout_url: `https://shop.example/cart/${token}`,
      line_items: [{ product_id: 'p-1', variant_id: 'v-1', title: 'Lamp', quantity: 1 + (i % 3), price: '19.90' }],
    });
    if (i % 4 === 0) add(at + 5 * MIN, 'carts/update', { token, line_items: [{ product_id: 'p-1', quantity: 5 }] });
    add(at + 7 * MIN, 'page/viewed', { email, product_id: 'p-1', url: 'https://shop.example/p-1' });
    if (i % 5 === 0) {
      add(at + 3 * HOUR, 'orders/paid', {
        id: `order-${i}`,
        customer_id: `c-${email}`,
        email,
        name: `#${i}`,
        order_status: 'paid',
        total_price: '39.80',
        currency: 'EUR',
        line_items: [{ product_id: 'p-1', title: 'Lamp', quantity: 2, price: '19.90' }],
        cart_token: token,
      });
    }
  }
  return events.sort((a, b) => a.acceptedAt - b.acceptedAt);
};

/** The store's history as the worker writes it for a trickle: a batch per event, some applied twice. */
const writeHistory = async (storeId: string, events: readonly HistoryEvent[]) => {
  const history = dynamoEventHistory(clock);
  const buffer = new HistoryBuffer();
  const oldLayout = events.slice(0, 6);
  for (const [i, event] of events.slice(6).entries()) {
    buffer.add({ v: 1, ...event });
    if (i % 37 === 0) buffer.add({ v: 1, ...event });
    await buffer.flush({ history, keepDays: 90 });
  }
  // The first events as the layout before the November 2026 cost pass kept them: a minute's item holding a set of packs.
  const minute = Math.floor((oldLayout[0] as HistoryEvent).acceptedAt / MIN) * MIN;
  const packs = await Promise.all(oldLayout.map((e) => packEvents([e])));
  await batchPut([
    {
      ...keys.eventHistoryMinute(storeId, historyDay(minute), minute),
      ...itemMeta('eventHistory'),
      packs: new Set(packs.flat().map((p) => p.bytes)),
      expiresAt: Math.floor(NOW / 1000) + 86_400,
    },
  ]);
};

const dayItems = async (storeId: string, day: string) => {
  const items: Record<string, unknown>[] = [];
  let after: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.eventHistory(storeId, day).pk },
        ...(after ? { ExclusiveStartKey: after } : {}),
      }),
    );
    items.push(...(page.Items ?? []));
    after = page.LastEvaluatedKey;
  } while (after);
  return items;
};

const backtest = async (storeId: string): Promise<Omit<BacktestAnswer, 'tookMs'>> => {
  const f = backtestFakes({ flows: [cartFlow()] });
  for (let i = 0; i < 23; i++) {
    const email = `c${i}@example.com`;
    f.customers.set(
      `c-${email}`,
      customerOf(`c-${email}`, {
        email,
        firstName: `Name${i}`,
        emailConsent: { state: i % 4 === 0 ? 'not_subscribed' : 'subscribed', updatedAt: 1 },
      }),
    );
  }
  const { tookMs: _tookMs, ...answer } = await backtestFlow(
    { ...f.deps, history: dynamoEventHistory(clock) },
    storeId,
    'fl_cart',
    { from: T0 / 1000, to: (T0 + 4 * DAY_MS) / 1000, limit: 1_000 },
  );
  return answer;
};

const compaction = (history = dynamoCompactableHistory(clock)): CompactHistoryDeps => ({
  history,
  keepDays: 90,
  clock,
});

describe('history compaction on DynamoDB', () => {
  it('compacts each day through the timer worker to one item, a backtest answering the same, again a no-op', async () => {
    const storeId = `st_compact_${Date.now()}`;
    const events = storeEvents(storeId);
    await writeHistory(storeId, events);
    const before = await backtest(storeId);
    expect(before.replayed.events).toBe(events.length);
    expect(before.summary.entered).toBeGreaterThan(20);
    expect(before.summary.recovered.orders).toBeGreaterThan(0);
    const itemsBefore = (await Promise.all(DAYS.map((day) => dayItems(storeId, day)))).map((items) => items.length);
    expect(itemsBefore.reduce((a, b) => a + b, 0)).toBeGreaterThan(events.length - 10);

    const deps = { historyCompaction: compaction(), clock } as unknown as FireTimerDeps;
    for (const day of DAYS) {
      const outcome = await fireTimer(deps, { v: 1, kind: 'history', storeId, day });
      expect(outcome).toMatchObject({ compacted: { written: 1, kept: 0 } });
    }
    for (const day of DAYS) {
      const items = await dayItems(storeId, day);
      expect(items).toHaveLength(1);
      expect(String(items[0]?.sk)).toMatch(/^PACK#\d{15}#[\w-]{16}$/);
      expect(items[0]).toMatchObject({ ...itemMeta('eventHistory'), expiresAt: expect.any(Number) });
    }
    expect(await backtest(storeId)).toEqual(before);

    // Compacting a compacted day reads it and writes nothing.
    const calls = runtime.dynamodbCalls();
    for (const day of DAYS) {
      expect(await compactHistoryDay(compaction(), storeId, day)).toMatchObject({ written: 0, kept: 1, deleted: 0 });
    }
    const after = runtime.dynamodbCalls();
    for (const op of ['PutItem', 'BatchWriteItem', 'DeleteItem'] as const) {
      expect((after[op] ?? 0) - (calls[op] ?? 0), op).toBe(0);
    }
  });

  it('answers the same after a crash between the puts and the deletes, and the next run removes the rest', async () => {
    const storeId = `st_compact_crash_${Date.now()}`;
    const events = storeEvents(storeId);
    await writeHistory(storeId, events);
    const before = await backtest(storeId);
    const day = DAYS[1] as string;
    const original = (await dayItems(storeId, day)).length;

    const history = dynamoCompactableHistory(clock);
    const crashing = {
      ...history,
      remove: async () => {
        throw new Error('crashed before the deletes');
      },
    };
    await expect(compactHistoryDay(compaction(crashing), storeId, day)).rejects.toThrow('crashed before the deletes');
    // The merged pack is there beside every item it was made of: read as one copy of each event.
    expect(await dayItems(storeId, day)).toHaveLength(original + 1);
    expect(await backtest(storeId)).toEqual(before);

    expect(await compactHistoryDay(compaction(), storeId, day)).toMatchObject({
      read: original + 1,
      written: 0,
      kept: 1,
      deleted: original,
    });
    expect(await dayItems(storeId, day)).toHaveLength(1);
    expect(await backtest(storeId)).toEqual(before);
  });
});
