/**
 * `npm run simulate` at a small seed, on its own local runtime: a store's days of mixed traffic through the public
 * APIs (both interfaces and the publishable key, carts, checkouts, payments, opens, clicks, a mailbox-simulator bounce
 * and complaint, a bulk send, a campaign), then every invariant of the reconciliation holds: each email counted once
 * and in one kind, delivered and bounced within sent, attributed orders and revenue within what was paid, a segment's
 * count equal to its members, and no run exited without a reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { simulateWeek } from '#local/simulate/week.ts';
import { createStore, issuePublishableKey } from '#shared/domain/stores/manage-stores.ts';
import { storeAdminDeps } from '#shared/wiring/store-admin.ts';

let runtime: LocalRuntime;

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
});

afterAll(async () => {
  await runtime?.stop();
});

describe('a simulated store week', () => {
  it('plays two days of a small store and every number reconciles', async () => {
    const origin = 'https://sim-7.example';
    const { store, apiKey } = await createStore(storeAdminDeps(), { name: 'Simulated', type: 'direct' });
    const { publishableKey } = await issuePublishableKey(storeAdminDeps(), store.storeId, { origins: [origin] });
    const report = await simulateWeek(
      {
        urls: runtime.urls,
        sqsEndpoint: runtime.urls.sqs,
        store: { storeId: store.storeId, apiKey, publishableKey, origin },
      },
      { days: 2, customers: 24, seed: 7 },
    );
    expect(report.invariants.filter((i) => !i.holds)).toEqual([]);
    // The week did what a week does: mail of every kind went out and orders were paid.
    expect(report.counted.byKind.flow).toBeGreaterThan(0);
    expect(report.counted.byKind.bulk).toBeGreaterThan(0);
    expect(report.counted.delivered).toBeGreaterThan(0);
    expect(report.played.paidOrders).toBeGreaterThan(0);
  }, 240_000);
});
