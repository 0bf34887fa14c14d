/**
 * One delivery attempt (`deliver` of shared/domain/webhooks/deliver.ts) when SQS hands the same message over twice, unit
 * level with in-memory ports. SQS delivers at least once: two copies of one delivery's message may be handled at the
 * same time, or a copy may come back while the delivery waits for its next retry. The receiver must get one request per
 * attempt, not one per copy, and the retry ladder must not be run twice.
 */
import { describe, expect, it } from 'vitest';
import { CLAIM_MS, type DeliverDeps, deliver } from '#shared/domain/webhooks/deliver.ts';
import type { PostResult } from '#shared/domain/webhooks/ports.ts';
import { NOW, WEBHOOK_STORE, webhookFakes } from '#test/support/memory/webhooks.ts';

const MESSAGE = { storeId: WEBHOOK_STORE, deliveryId: 'dl_twice' };

/** The fakes, a receiver that answers `status` after yielding (so a second copy can run meanwhile), and a clock. */
const setup = (status = 200) => {
  const fakes = webhookFakes();
  const webhook = fakes.addWebhook();
  fakes.addDelivery(webhook, MESSAGE.deliveryId, { status: 'pending', attempts: [], revision: 1 });
  const posts: string[] = [];
  let now = NOW;
  const deps: DeliverDeps = {
    webhooks: fakes.deps.webhooks,
    deliveries: fakes.deps.deliveries,
    keys: { keyOf: async () => 'store-key' },
    sender: {
      post: async (url): Promise<PostResult> => {
        posts.push(url);
        await new Promise((resolve) => setTimeout(resolve, 5));
        return status === 200
          ? { outcome: 'delivered', statusCode: 200, latencyMs: 5 }
          : { outcome: 'rejected', statusCode: status, latencyMs: 5 };
      },
    },
    clock: { now: () => now },
    backoffBaseSeconds: 5,
  };
  return { fakes, deps, posts, advance: (ms: number) => (now += ms) };
};

describe('deliver with two copies of one message', () => {
  it('posts once when both copies are handled at the same time: the second finds the attempt claimed', async () => {
    const { fakes, deps, posts } = setup();
    const outcomes = await Promise.all([deliver(deps, MESSAGE, 1), deliver(deps, MESSAGE, 1)]);

    expect(posts).toHaveLength(1);
    expect(outcomes).toEqual(expect.arrayContaining([{ done: 'delivered' }, { done: 'skipped' }]));
    expect(fakes.delivery(MESSAGE.deliveryId)).toMatchObject({ status: 'delivered', attempts: [{ statusCode: 200 }] });
    expect(fakes.delivery(MESSAGE.deliveryId)?.claimedUntil).toBeUndefined();
  });

  it('holds back a copy that comes while the delivery waits for its retry, without an attempt', async () => {
    const { fakes, deps, posts, advance } = setup(503);
    expect(await deliver(deps, MESSAGE, 1)).toEqual({ retryInSeconds: 5 });
    advance(1_000);

    expect(await deliver(deps, MESSAGE, 1)).toEqual({ waitSeconds: 4 });
    expect(posts).toHaveLength(1);
    expect(fakes.delivery(MESSAGE.deliveryId)?.attempts).toHaveLength(1);

    advance(4_000);
    expect(await deliver(deps, MESSAGE, 2)).toEqual({ retryInSeconds: 10 });
    expect(posts).toHaveLength(2);
  });

  it("holds back a message that comes back while its dead worker's claim lasts, then attempts again", async () => {
    const { fakes, deps, posts, advance } = setup();
    // A worker claimed the attempt and died before posting: its message comes back after the visibility timeout.
    const stored = fakes.delivery(MESSAGE.deliveryId);
    if (!stored) throw new Error('no delivery');
    await deps.deliveries.save({ ...stored, claimedUntil: NOW + CLAIM_MS, revision: 2 }, 1);

    // Skipped, the delivery would stay pending for ever: this is the only message it has.
    expect(await deliver(deps, MESSAGE, 1)).toEqual({ waitSeconds: CLAIM_MS / 1000 });
    expect(posts).toHaveLength(0);

    advance(CLAIM_MS + 1);
    expect(await deliver(deps, MESSAGE, 2)).toEqual({ done: 'delivered' });
    expect(posts).toHaveLength(1);
  });
});
