/**
 * The `store/sending_paused` webhook end to end: a store whose bounces pass the guard's pause level hears it once, on
 * the SES event that tipped it, and hears once more when the operator resumes it; a store in good standing hears
 * nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoStoreReputation } from '#shared/adapters/dynamodb/store-reputation.ts';
import { reputationDays } from '#shared/domain/email/reputation.ts';
import { resumeSending } from '#shared/wiring/sending.ts';
import { eventually, newStore } from '#test/support/local.ts';
import { mailStore, registerDomain, send } from '#test/support/sending.ts';
import { freshPath, type Receiver, startReceiver, subscribe } from '#test/support/webhooks.ts';
import { emailEventsSettled, signedBody, simulated } from './support.ts';

process.env.WEBHOOK_BACKOFF_BASE_SECONDS = '1';

let runtime: LocalRuntime;
let receiver: Receiver;

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
  receiver = await startReceiver();
});

afterAll(async () => {
  await receiver?.close();
  await runtime?.stop();
});

describe('the store/sending_paused webhook', () => {
  it("tells the pause once, on the event that tipped it, and the operator's resume once", async () => {
    const store = await newStore('Sending paused');
    const path = freshPath('paused');
    await subscribe(runtime, store, 'store/sending_paused', receiver.url(path));
    const domain = `paused-${Math.random().toString(36).slice(2, 8)}.example`;
    await registerDomain(runtime, store, domain);
    const people = ['ada', 'grace'].map((name) => `${name}@${domain}`);
    const sent = await send(runtime, store, {
      subject: 'Hello',
      html: '<p>Hello</p>',
      from: { name: 'Shop', email: `news@${domain}` },
      recipients: people.map((email) => ({ address: { email } })),
    });
    expect(sent.body).toMatchObject({ totalAccepted: 2 });
    // The deliveries keep the store in good standing: nothing is told.
    await eventually('both mails in the local SES', async () => {
      const mails = (await mailStore(runtime)).filter((m) => m.destination.to.some((to) => to.includes(domain)));
      return mails.length === 2 ? mails : undefined;
    });
    await emailEventsSettled(runtime);
    expect(receiver.received(path)).toEqual([]);

    // The store's bounces so far (written as the guard keeps them), then one more: over the pause level.
    const [today] = reputationDays(Date.now());
    await dynamoStoreReputation().count(store.storeId, today as string, 'delivered', 200);
    await dynamoStoreReputation().count(store.storeId, today as string, 'bounced', 30);
    const [mail] = (await mailStore(runtime)).filter((m) => m.destination.to.some((to) => to.includes(domain)));
    await simulated(runtime, { messageId: mail?.messageId, type: 'bounce', bounceType: 'Permanent' });
    await simulated(runtime, { messageId: mail?.messageId, type: 'bounce', bounceType: 'Permanent' });
    const [paused] = await receiver.waitFor(path, 1);
    if (!paused) throw new Error('no pause told');
    expect(signedBody(paused, store, 'store/sending_paused')).toMatchObject({
      store_id: store.storeId,
      paused: true,
      reason: expect.stringMatching(/bounce/i),
    });
    await emailEventsSettled(runtime);
    expect(receiver.received(path)).toHaveLength(1);

    await resumeSending(store.storeId);
    const told = await receiver.waitFor(path, 2);
    expect(signedBody(told[1] as (typeof told)[number], store, 'store/sending_paused')).toMatchObject({
      paused: false,
      reason: null,
    });
  });
});
