/**
 * Segments scenario: how soon a contact is in a segment after the event that put them there, on an idle
 * runtime. One local runtime (in memory):
 *
 * 1. a store and a segment "spent more than 100" (`contact.total_spent greater_than 100`), built (empty) before the load;
 * 2. for `--seconds` (default 30), ten new customers a second, each a `customers/create` and then an `orders/paid` of
 *    150 (the order is what moves them in);
 * 3. after the queues drain, each member's `enteredAt` less its order event's `acceptedAt` (the moment the API took
 *    it): the event → membership latency.
 *
 * Target: p99 under 2 s (peers: Klaviyo's segment-triggered flows fire 13–15 minutes late).
 */
import { apiCall, queuesDrained } from '#bench/lib/api.ts';
import { formatNumber, round, sleep, summarize } from '#bench/lib/stats.ts';
import type { Metric, Result, Scenario, ScenarioOptions } from '#bench/scenario.ts';
import { startLocalRuntime } from '#local/runtime.ts';
import { dynamoEventLog } from '#shared/adapters/dynamodb/event-log.repository.ts';
import { dynamoSegmentMembers } from '#shared/adapters/dynamodb/segments.repositories.ts';
import { createStore } from '#shared/domain/stores/manage-stores.ts';
import { storeAdminDeps } from '#shared/wiring/store-admin.ts';

const DEFAULT_SECONDS = 30;
const CUSTOMERS_PER_SECOND = 10;
const DRAIN_MS = 60_000;

export const segments: Scenario = {
  name: 'segments',
  description: 'event → segment membership latency (p99), idle runtime',
  async run(options: ScenarioOptions): Promise<Result> {
    const { log } = options;
    const seconds = options.given.has('seconds') ? options.seconds : DEFAULT_SECONDS;
    const runtime = await startLocalRuntime({ logLevel: process.env.POWERTOOLS_LOG_LEVEL ?? 'ERROR' });
    try {
      const { store, apiKey } = await createStore(storeAdminDeps(), { name: 'Segments bench', type: 'direct' });
      const created = await apiCall(`${runtime.urls.main}/api/v1/segments`, apiKey, 'POST', {
        name: 'Spent more than 100',
        conditions: { match: 'all', conditions: [{ field: 'contact.total_spent', op: 'greater_than', value: 100 }] },
      });
      const segmentId = (created.body.data as { id?: string } | undefined)?.id;
      if (created.status !== 200 || !segmentId) throw new Error(`segments: ${JSON.stringify(created.body)}`);
      for (let tries = 0; tries < 100; tries++) {
        const got = await apiCall(`${runtime.urls.main}/api/v1/segments/${segmentId}`, apiKey, 'GET');
        if ((got.body.data as { status?: string } | undefined)?.status === 'ready') break;
        await sleep(200);
      }

      log(`segments: ${CUSTOMERS_PER_SECOND} customers a second for ${seconds} s`);
      const orders = new Map<string, string>();
      const pending: Promise<unknown>[] = [];
      const total = seconds * CUSTOMERS_PER_SECOND;
      for (let i = 0; i < total; i++) {
        const customerId = `seg-bench-${i}`;
        pending.push(
          (async () => {
            const base = { email: `${customerId}@bench.example` };
            await apiCall(`${runtime.urls.main}/api/v1/events`, apiKey, 'POST', {
              endpoint: 'customers/create',
              source_id: `c-${customerId}`,
              data: { id: customerId, ...base, created_at: Math.floor(Date.now() / 1000) },
            });
            const sourceId = `o-${customerId}`;
            const paid = await apiCall(`${runtime.urls.main}/api/v1/events`, apiKey, 'POST', {
              endpoint: 'orders/paid',
              source_id: sourceId,
              data: {
                id: `order-${i}`,
                ...base,
                customer_id: customerId,
                name: `#${i}`,
                order_status: 'paid',
                total_price: '150.00',
                currency: 'EUR',
                line_items: [
                  { id: 'l1', product_id: 'p1', variant_id: 'v1', title: 'Lamp', quantity: 1, price: '150.00' },
                ],
              },
            });
            if (paid.status === 200) orders.set(customerId, sourceId);
          })(),
        );
        await sleep(1000 / CUSTOMERS_PER_SECOND);
      }
      await Promise.all(pending);
      await queuesDrained(runtime, ['ingest', 'segments'], DRAIN_MS);

      const entered = new Map<string, number>();
      const members = dynamoSegmentMembers();
      let cursor: string | undefined;
      do {
        const page = await members.page(store.storeId, segmentId, { limit: 500, ...(cursor ? { cursor } : {}) });
        for (const member of page.items) entered.set(member.customerId, member.enteredAt);
        cursor = page.nextCursor;
      } while (cursor);
      const events = dynamoEventLog();
      const latencies: number[] = [];
      let missing = 0;
      for (const [customerId, sourceId] of orders) {
        const [record, at] = [await events.recorded(store.storeId, sourceId), entered.get(customerId)];
        if (record && at !== undefined) latencies.push(at - record.acceptedAt);
        else missing++;
      }
      const summary = summarize(latencies);
      const metrics: Metric[] = [
        {
          key: 'membershipP99',
          label: 'event → segment membership p99',
          value: round(summary.p99),
          unit: 'ms',
          target: { op: '<=', value: 2000 },
        },
        { key: 'membershipP50', label: 'event → segment membership p50', value: round(summary.p50), unit: 'ms' },
        { key: 'missing', label: 'orders whose customer never entered', value: missing, unit: 'contacts' },
      ];
      return {
        scenario: 'segments',
        title: 'Segments: event → membership latency',
        metrics,
        notes: [
          `${formatNumber(orders.size)} customers, each a customers/create and an orders/paid of 150 (${CUSTOMERS_PER_SECOND}/s), into "contact.total_spent greater_than 100"; latency = the member's enteredAt − the order event's acceptedAt.`,
        ],
        details: { summary, missing, customers: orders.size, seconds },
      };
    } finally {
      await runtime.stop();
    }
  },
};
