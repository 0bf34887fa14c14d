/**
 * Re-sending a delivery while something else writes it (`retryDelivery` of shared/domain/webhooks/manage-webhooks.ts and
 * the console's `resendFailedSince`), unit level with in-memory ports. The write of a re-send is conditional on the
 * revision it read; another re-send or the delivery worker writing the same delivery in between makes it lose the race.
 * That must never answer 500: the delivery is read again and, if it can still be re-sent, re-sent (once); if it is now
 * pending or delivered the answer is the usual 409 saying so; if it changed again, 409 "being changed by another request;
 * retry". The console's "re-send failed since" skips and counts such a delivery instead of failing the whole post.
 */
import { describe, expect, it } from 'vitest';
import { resendFailedSince } from '#shared/domain/console/webhooks-view.ts';
import { retryDelivery } from '#shared/domain/webhooks/manage-webhooks.ts';
import { AppError } from '#shared/errors.ts';
import { NOW, WEBHOOK_STORE, webhookFakes } from '#test/support/memory/webhooks.ts';

const STORE = WEBHOOK_STORE;

/** What a rejected use case threw. */
const failureOf = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
};

describe('retryDelivery while the delivery is written concurrently', () => {
  it('re-reads and re-sends when the delivery changed but can still be re-sent (another re-send, then the worker cancelling it)', async () => {
    const fakes = webhookFakes();
    const webhook = fakes.addWebhook();
    fakes.addDelivery(webhook, 'dl_benign');
    let interfered = false;
    fakes.interfere('dl_benign', (_record, write) => {
      if (interfered) return;
      interfered = true;
      // Between the read and the write: another re-send put it back to pending, then the worker cancelled it.
      write({ status: 'pending', reason: undefined });
      write({ status: 'cancelled', reason: 'the webhook was removed or changed' });
    });

    const record = await retryDelivery(fakes.deps, STORE, 'dl_benign');

    expect(record).toMatchObject({ id: 'dl_benign', status: 'pending', webhookId: webhook.id, url: webhook.url });
    expect(record).not.toHaveProperty('reason');
    expect(fakes.saves.map((s) => [s.expectedRevision, s.conflicted])).toEqual([
      [7, true],
      [9, false],
    ]);
    expect(fakes.delivery('dl_benign')).toMatchObject({ status: 'pending', revision: 10, updatedAt: NOW });
    expect(fakes.enqueued).toEqual([{ storeId: STORE, deliveryId: 'dl_benign' }]);
  });

  it('answers 409 "The delivery is pending" when another re-send won the race, and queues nothing more', async () => {
    const fakes = webhookFakes();
    const webhook = fakes.addWebhook();
    fakes.addDelivery(webhook, 'dl_raced');
    fakes.interfere('dl_raced', (_record, write) => {
      if (fakes.delivery('dl_raced')?.status === 'failed') write({ status: 'pending', reason: undefined });
    });

    const error = await failureOf(retryDelivery(fakes.deps, STORE, 'dl_raced'));

    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({
      kind: 'conflict',
      message: 'The delivery is pending; only failed or cancelled deliveries can be re-sent',
    });
    expect(fakes.saves).toHaveLength(1);
    expect(fakes.enqueued).toEqual([]);
    expect(fakes.delivery('dl_raced')).toMatchObject({ status: 'pending', revision: 8 });
  });

  it('answers 409 "being changed by another request; retry" when the delivery changes under both writes, and leaves it as the other writer did', async () => {
    const fakes = webhookFakes();
    const webhook = fakes.addWebhook();
    fakes.addDelivery(webhook, 'dl_busy');
    fakes.interfere('dl_busy', (_record, write) => {
      write({ updatedAt: NOW + fakes.saves.length });
    });

    const error = await failureOf(retryDelivery(fakes.deps, STORE, 'dl_busy'));

    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({
      kind: 'conflict',
      message: 'The delivery is being changed by another request; retry',
    });
    // The first write and one more on a fresh read; then the client is told to retry.
    expect(fakes.saves.map((s) => [s.expectedRevision, s.conflicted])).toEqual([
      [7, true],
      [8, true],
    ]);
    expect(fakes.enqueued).toEqual([]);
    expect(fakes.delivery('dl_busy')).toMatchObject({ status: 'failed', revision: 9 });
  });

  it('does not turn a failing write that is not a conflict into a 409', async () => {
    const fakes = webhookFakes();
    const webhook = fakes.addWebhook();
    fakes.addDelivery(webhook, 'dl_down');
    const outage = new Error('the table is unreachable');
    fakes.failSavesWith(outage);

    expect(await failureOf(retryDelivery(fakes.deps, STORE, 'dl_down'))).toBe(outage);
    expect(fakes.enqueued).toEqual([]);
  });
});

describe('the console re-sending every failed delivery since a time', () => {
  it('skips and counts the deliveries that change during the post, and re-sends the others', async () => {
    const fakes = webhookFakes();
    const webhook = fakes.addWebhook();
    // Newest first: d is the newest.
    fakes.addDelivery(webhook, 'dl_a', { createdAt: NOW - 40_000 });
    fakes.addDelivery(webhook, 'dl_b', { createdAt: NOW - 30_000 });
    fakes.addDelivery(webhook, 'dl_c', { createdAt: NOW - 20_000 });
    fakes.addDelivery(webhook, 'dl_d', { createdAt: NOW - 10_000 });
    fakes.addDelivery(webhook, 'dl_old', { createdAt: NOW - 3_600_000 });
    // b: written on every try (the worker, or a busy integrator's script); c: re-sent by another request meanwhile.
    fakes.interfere('dl_b', (_record, write) => {
      write({ updatedAt: NOW + fakes.saves.length });
    });
    fakes.interfere('dl_c', (_record, write) => {
      if (fakes.delivery('dl_c')?.status === 'failed') write({ status: 'pending', reason: undefined });
    });

    const done = await resendFailedSince(fakes.deps, STORE, webhook.id, NOW - 60_000);

    expect(done).toEqual({ resent: 2, skipped: 2, more: false });
    expect(fakes.enqueued.map((e) => e.deliveryId)).toEqual(['dl_d', 'dl_a']);
    expect(fakes.delivery('dl_a')?.status).toBe('pending');
    expect(fakes.delivery('dl_b')?.status).toBe('failed');
    expect(fakes.delivery('dl_c')?.status).toBe('pending');
    expect(fakes.delivery('dl_d')?.status).toBe('pending');
    expect(fakes.delivery('dl_old')?.status).toBe('failed');
  });

  it('still fails the post on an error that is not a conflict', async () => {
    const fakes = webhookFakes();
    const webhook = fakes.addWebhook();
    fakes.addDelivery(webhook, 'dl_a', { createdAt: NOW - 10_000 });
    const outage = new Error('the table is unreachable');
    fakes.failSavesWith(outage);

    expect(await failureOf(resendFailedSince(fakes.deps, STORE, webhook.id, NOW - 60_000))).toBe(outage);
  });
});
