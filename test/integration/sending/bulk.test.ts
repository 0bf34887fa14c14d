/** A full bulk send on the local runtime: 2,000 recipients in one call, through the queue and SES, each mail its own. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalSentMail } from '#local/emulators/ses-proxy.ts';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoSentMessages } from '#shared/adapters/dynamodb/email.repositories.ts';
import { unsubscribeLinks } from '#shared/adapters/email/unsubscribe-links.ts';
import { sqsSendQueue } from '#shared/adapters/sqs/send-queue.ts';
import { EMAIL_TAGS } from '#shared/domain/email/model.ts';
import { eventually, newStore, queueIsEmpty, type TestStore } from '#test/support/local.ts';
import {
  bulk,
  mailStore,
  readBatch,
  recipients,
  registerDomain,
  type StoredMail,
  send,
} from '#test/support/sending.ts';

let runtime: LocalRuntime;
let store: TestStore;
const announced: LocalSentMail[] = [];
const DOMAIN = 'bulk-shop.example';

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
  runtime.ses.onSent((mails) => {
    announced.push(...mails);
  });
  store = await newStore('Bulk sender');
  await registerDomain(runtime, store, DOMAIN);
});
afterAll(async () => {
  await runtime?.stop();
});

const mailsTo = async (domain: string): Promise<StoredMail[]> =>
  (await mailStore(runtime)).filter((m) => m.destination.to.some((to) => to.endsWith(`@${domain}`)));

describe('bulk send of 2,000 recipients', () => {
  it('accepts them in one call, and SES gets all 2,000 in exactly 40 SendBulkEmail calls, each with its own data', async () => {
    const before = runtime.sesCalls().SendBulkEmail ?? 0;
    const answer = await send(
      runtime,
      store,
      bulk(DOMAIN, {
        preheader: 'Spring <sale> is on',
        recipients: recipients(2000, 'two-thousand.example', (i) => ({ firstName: `P${i}`, code: `C${i}` })),
      }),
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ totalAccepted: 2000, totalRejected: 0, code: '200', succeed: true });
    const id = String(answer.body.id);
    expect(id).toMatch(/^sb_[A-Za-z0-9]{20}$/);

    const mails = await eventually(
      'all 2,000 mails in the local SES',
      async () => {
        const found = await mailsTo('two-thousand.example');
        return found.length >= 2000 ? found : undefined;
      },
      240_000,
    );
    expect(mails).toHaveLength(2000);
    expect(runtime.sesCalls().SendBulkEmail).toBe(before + 40);

    const byAddress = new Map(mails.map((m) => [m.destination.to[0], m]));
    expect(byAddress.size).toBe(2000);
    for (const i of [0, 1, 49, 50, 777, 1999]) {
      const mail = byAddress.get(`r${i}@two-thousand.example`);
      expect(mail?.subject).toBe(`Hello P${i}`);
      expect(mail?.body.html).toContain(`<p>Hi P${i}, your code is C${i} (spring)</p>`);
      expect(mail?.body.html).toContain('Spring &lt;sale&gt; is on');
      expect(mail?.body.text).toBe(`Hi P${i}, code C${i}`);
      expect(mail?.from).toBe(`"The Shop" <news@${DOMAIN}>`);
      expect(mail?.replyTo).toEqual([`news@${DOMAIN}`]);
      // Each recipient its own one-click unsubscribe link, for this batch.
      const header = mail?.headers?.find((h) => h.name === 'List-Unsubscribe')?.value ?? '';
      const token = /\/unsubscribe\/([^>]+)>$/.exec(header)?.[1] ?? '';
      expect(await unsubscribeLinks().verify(token)).toEqual({
        storeId: store.storeId,
        email: `r${i}@two-thousand.example`,
        transmissionId: id,
      });
      expect(mail?.headers).toContainEqual({ name: 'List-Unsubscribe-Post', value: 'List-Unsubscribe=One-Click' });
    }

    // Tags carry the store and the batch; every sent message is recorded for the email events.
    const mine = announced.filter((m) => m.tags[EMAIL_TAGS.transmission] === id);
    expect(mine).toHaveLength(2000);
    expect(mine[0]?.tags).toMatchObject({ [EMAIL_TAGS.store]: store.storeId, [EMAIL_TAGS.kind]: 'bulk' });
    // Recorded right after SES answered the chunk (the mail store has it a moment earlier).
    const recorded = await eventually('the last message recorded', () =>
      dynamoSentMessages().get(mine[1999]?.messageId ?? ''),
    );
    expect(recorded).toMatchObject({
      storeId: store.storeId,
      transmissionId: id,
      kind: 'bulk',
      msgFrom: `news@${DOMAIN}`,
    });

    const status = await eventually('the batch to read sent', async () => {
      const read = await readBatch(runtime, store, id);
      return read.body.status === 'sent' ? read.body : undefined;
    });
    expect(status).toMatchObject({ sent: 2000, failed: 0, pending: 0, chunks: 40, chunksDone: 40, rejections: [] });
  }, 300_000);

  it('sends a redelivered chunk once: a chunk already done is skipped', async () => {
    const answer = await send(runtime, store, bulk(DOMAIN, { recipients: recipients(3, 'redelivery.example') }));
    const id = String(answer.body.id);
    await eventually('the batch to be sent', async () => {
      const read = await readBatch(runtime, store, id);
      return read.body.status === 'sent' ? true : undefined;
    });
    const calls = runtime.sesCalls().SendBulkEmail ?? 0;
    await sqsSendQueue().enqueueChunks(store.storeId, id, [0]);
    await sqsSendQueue().startBatch(store.storeId, id);
    // Wait until the queue drained, then check nothing went out again.
    await eventually('the sends queue to drain', async () =>
      (await queueIsEmpty(runtime.queueUrls.sends)) ? true : undefined,
    );
    expect(runtime.sesCalls().SendBulkEmail).toBe(calls);
    expect(await mailsTo('redelivery.example')).toHaveLength(3);
    const read = await readBatch(runtime, store, id);
    expect(read.body).toMatchObject({ sent: 3, chunksDone: 1 });
  });
});
