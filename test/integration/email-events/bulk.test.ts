/**
 * The whole loop through the real sending host: a bulk send (`POST /api/v1/sending`) yields one `delivery` callback per
 * recipient with the batch id as `transmission_id`; a simulated hard bounce of one recipient and the one-click
 * unsubscribe of another (through the List-Unsubscribe header of the mail itself) come back with the same batch id;
 * and the next send to the same people counts both as rejected.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { eventually, newStore } from '#test/support/local.ts';
import { call, mailStore, registerDomain, send } from '#test/support/sending.ts';
import { freshPath, type Receiver, startReceiver, subscribe } from '#test/support/webhooks.ts';
import { signedBody, simulated } from './support.ts';

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

describe('a bulk send, end to end', () => {
  it('reports deliveries, a bounce and an unsubscribe with the batch id, and suppresses both addresses', async () => {
    const store = await newStore('Email events bulk');
    const path = freshPath('bulk');
    await subscribe(runtime, store, 'transmission/callback', receiver.url(path));
    const domain = `shop-${Math.random().toString(36).slice(2, 8)}.example`;
    await registerDomain(runtime, store, domain);
    const people = ['ada', 'grace', 'edsger'].map((name) => `${name}@${domain}`);
    const request = {
      subject: 'Spring sale',
      html: '<p>Hello {{name}}</p>',
      from: { name: 'Shop', email: `news@${domain}` },
      recipients: people.map((email, i) => ({ address: { email }, substitutionData: { name: `P${i}` } })),
    };

    const first = await send(runtime, store, request);
    expect(first.body).toMatchObject({ totalAccepted: 3, totalRejected: 0, succeed: true });
    const batchId = String(first.body.id);

    const bodies = () => receiver.received(path).map((r) => signedBody(r, store, 'transmission/callback'));
    const ofType = (eventType: string) => bodies().filter((b) => b.eventType === eventType);
    await eventually(
      'three delivery callbacks',
      async () => (ofType('delivery').length === 3 ? true : undefined),
      30_000,
    );
    for (const body of ofType('delivery')) {
      expect(body.eventData).toMatchObject({ transmission_id: batchId, msg_from: `news@${domain}`, reason: null });
    }
    expect(
      ofType('delivery')
        .map((b) => (b.eventData as { rcpt_to: string }).rcpt_to)
        .sort(),
    ).toEqual([...people].sort());

    // The mails themselves, as the local SES stored them: their message ids and List-Unsubscribe links.
    const mails = (await mailStore(runtime)).filter((mail) => mail.destination.to.some((to) => to.includes(domain)));
    const mailTo = (email: string) => {
      const mail = mails.find((m) => m.destination.to.some((to) => to.includes(email)));
      if (!mail) throw new Error(`no mail to ${email}`);
      return mail;
    };
    const [ada, grace] = people as [string, string, string];
    await simulated(runtime, { messageId: mailTo(ada).messageId, type: 'bounce', bounceType: 'Permanent' });
    const header = mailTo(grace).headers?.find((h) => h.name.toLowerCase() === 'list-unsubscribe')?.value ?? '';
    const unsubscribeUrl = /^<(.+)>$/.exec(header)?.[1];
    if (!unsubscribeUrl) throw new Error(`no List-Unsubscribe header: ${JSON.stringify(mailTo(grace).headers)}`);
    const oneClick = await fetch(unsubscribeUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(oneClick.status).toBe(200);

    await eventually(
      'the bounce and list_unsubscribe callbacks',
      async () => (ofType('bounce').length === 1 && ofType('list_unsubscribe').length === 1 ? true : undefined),
      30_000,
    );
    expect(ofType('bounce')[0]?.eventData).toMatchObject({
      rcpt_to: ada,
      transmission_id: batchId,
      error_code: '5.1.1',
    });
    expect(ofType('list_unsubscribe').map((b) => b.eventData)).toEqual([{ rcpt_to: grace, transmission_id: batchId }]);

    const second = await send(runtime, store, request);
    expect(second.body).toMatchObject({ totalAccepted: 1, totalRejected: 2 });

    // The store's counters reconcile: every bulk email sent is counted as sent (the local SES delivers each one; the
    // simulated bounce came on top of its delivery), so delivered never exceeds sent.
    const counted = await eventually(
      'the four bulk emails counted as sent and delivered',
      async () => {
        const answer = await call(runtime.urls.main, store.apiKey, 'GET', '/api/v1/stats');
        const data = (answer.body as { data: { emailed: number; delivered: number } }).data;
        return data.delivered === 4 ? data : undefined;
      },
      30_000,
    );
    expect(counted.emailed).toBe(4);
  });
});
