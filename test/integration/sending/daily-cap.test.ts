/**
 * The per-store daily cap on marketing email: one store cannot spend the shared SES account's day. Runs
 * with a cap of 3 (`STORE_DAILY_SEND_CAP`); another store keeps its own allowance. The day's first send is held to the
 * cap as a later one is: its counter does not exist yet, and a send larger than the cap must not go out whole.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { EMAIL_TAGS } from '#shared/domain/email/model.ts';
import { setStoreDailySendCap } from '#shared/domain/stores/manage-stores.ts';
import { storeAdminDeps } from '#shared/wiring/store-admin.ts';
import { ensureSender, senderOf } from '#test/integration/flows/engine-support.ts';
import { importAndWait } from '#test/integration/imports/support.ts';
import { eventually, newStore, type TestStore } from '#test/support/local.ts';
import { bulk, mailStore, recipients, registerDomain, send, sleep } from '#test/support/sending.ts';
import { api } from '#test/support/webhooks.ts';

let runtime: LocalRuntime;
let heavy: TestStore;
let other: TestStore;
const previous = process.env.STORE_DAILY_SEND_CAP;
/** Mails the local SES accepted for each campaign. */
const campaignMails = new Map<string, number>();

beforeAll(async () => {
  process.env.STORE_DAILY_SEND_CAP = '3';
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
  runtime.ses.onSent((sent) => {
    for (const mail of sent) {
      const campaignId = mail.tags[EMAIL_TAGS.campaign];
      if (campaignId) campaignMails.set(campaignId, (campaignMails.get(campaignId) ?? 0) + mail.to.length);
    }
  });
  [heavy, other] = await Promise.all([newStore('Daily cap heavy'), newStore('Daily cap other')]);
  await registerDomain(runtime, heavy, 'heavy-sender.example');
  await registerDomain(runtime, other, 'other-sender.example');
});

afterAll(async () => {
  await runtime?.stop();
  if (previous === undefined) delete process.env.STORE_DAILY_SEND_CAP;
  else process.env.STORE_DAILY_SEND_CAP = previous;
});

describe('the daily cap', () => {
  it("refuses a bulk send that does not fit in the store's day (429 until midnight UTC), not another store's", async () => {
    const first = await send(
      runtime,
      heavy,
      bulk('heavy-sender.example', { recipients: recipients(2, 'cap.example') }),
    );
    expect(first.status).toBe(200);
    const over = await send(
      runtime,
      heavy,
      bulk('heavy-sender.example', { recipients: recipients(2, 'cap2.example') }),
      {
        raw: true,
      },
    );
    expect(over.status).toBe(429);
    expect(over.body.message).toBe(
      "The store's daily cap of 3 marketing emails does not leave room for 2 more today; retry after midnight UTC",
    );
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    // What still fits goes; another store has its own day.
    expect(
      (await send(runtime, heavy, bulk('heavy-sender.example', { recipients: recipients(1, 'cap3.example') }))).status,
    ).toBe(200);
    expect(
      (await send(runtime, other, bulk('other-sender.example', { recipients: recipients(3, 'cap4.example') }))).status,
    ).toBe(200);
  });

  it("takes a store's own cap over the deployment's, and back", async () => {
    const big = await newStore('Daily cap own');
    await registerDomain(runtime, big, 'big-sender.example');
    await setStoreDailySendCap(storeAdminDeps(), big.storeId, 5);
    // Five fit where the deployment's cap (3) would refuse them.
    const five = await send(runtime, big, bulk('big-sender.example', { recipients: recipients(5, 'own.example') }));
    expect(five.status).toBe(200);
    const sixth = await send(runtime, big, bulk('big-sender.example', { recipients: recipients(1, 'own2.example') }), {
      raw: true,
    });
    expect(sixth.status).toBe(429);
    expect(sixth.body.message).toMatch(/^The store's daily cap of 5 marketing emails/);
    await expect(setStoreDailySendCap(storeAdminDeps(), big.storeId, -1)).rejects.toThrow(/whole number/);
    await expect(setStoreDailySendCap(storeAdminDeps(), 'st_missing', 10)).rejects.toThrow(/No store st_missing/);
  });

  it("refuses the day's first bulk send when it is larger than the cap, as a later one (429, nothing sent)", async () => {
    const store = await newStore('Daily cap first bulk');
    await registerDomain(runtime, store, 'first-sender.example');
    await setStoreDailySendCap(storeAdminDeps(), store.storeId, 2);
    // Nothing sent today yet: three under a cap of two does not fit.
    const first = await send(
      runtime,
      store,
      bulk('first-sender.example', { recipients: recipients(3, 'first-cap.example') }),
      { raw: true },
    );
    expect(first.status, JSON.stringify(first.body)).toBe(429);
    expect(first.body).toMatchObject({
      code: '429',
      succeed: false,
      id: null,
      message:
        "The store's daily cap of 2 marketing emails does not leave room for 3 more today; retry after midnight UTC",
    });
    const retryAfter = Number(first.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    // The refused send counted nothing: the cap's two still go, and then nothing more.
    const two = await send(
      runtime,
      store,
      bulk('first-sender.example', { recipients: recipients(2, 'first-cap2.example') }),
      { raw: true },
    );
    expect(two.status, JSON.stringify(two.body)).toBe(200);
    const third = await send(
      runtime,
      store,
      bulk('first-sender.example', { recipients: recipients(1, 'first-cap3.example') }),
      { raw: true },
    );
    expect(third.status).toBe(429);
    await eventually(
      'the two mails',
      async () =>
        (await mailStore(runtime)).filter((m) => m.destination.to.some((to) => to.endsWith('@first-cap2.example')))
          .length === 2
          ? true
          : undefined,
      30_000,
    );
    expect(
      (await mailStore(runtime)).filter((m) => m.destination.to.some((to) => /@first-cap3?\.example/.test(to))),
    ).toEqual([]);
  }, 60_000);

  it("skips the day's first campaign page when it is larger than the cap, as a later one (daily_send_cap, nothing sent)", async () => {
    const store = await newStore('Daily cap first campaign');
    await ensureSender(runtime, store);
    await setStoreDailySendCap(storeAdminDeps(), store.storeId, 2);
    const lines = Array.from({ length: 4 }, (_, i) =>
      JSON.stringify({
        id: `dc-${i}`,
        email: `dc${i}@first-campaign.example`,
        first_name: `D${i}`,
        created_at: 1_700_000_000,
        email_marketing_consent: { state: 'subscribed' },
        tags: ['daily-cap'],
      }),
    );
    expect(await importAndWait(runtime, store.apiKey, `${lines.join('\n')}\n`, 120_000)).toMatchObject({
      result: 'SUCCESS',
      counts: { imported: 4 },
    });
    const segment = await api(runtime, store.apiKey, 'POST', '/api/v1/segments', {
      name: 'Daily cap',
      conditions: { match: 'all', conditions: [{ field: 'contact.tags', op: 'contains', value: 'daily-cap' }] },
    });
    expect(segment.status, JSON.stringify(segment.body)).toBe(200);
    const segmentId = (segment.body as { data: { id: string } }).data.id;
    await eventually(
      'the segment built',
      async () =>
        (
          (await api(runtime, store.apiKey, 'GET', `/api/v1/segments/${segmentId}`)).body as {
            data?: { count: number };
          }
        ).data?.count === 4
          ? true
          : undefined,
      60_000,
    );
    // Due now, one page of four: nothing sent today yet, and four do not fit under a cap of two.
    const created = await api(runtime, store.apiKey, 'POST', '/api/v1/campaigns', {
      name: 'First of the day',
      segments: [segmentId],
      from: senderOf(store),
      subject: 'Hello {{ contact.first_name }}',
      html: '<p>Hello {{ contact.first_name }}</p>',
      text: 'Hello {{ contact.first_name }}',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const campaignId = (created.body as { data: { id: string } }).data.id;
    const done = await eventually(
      'the campaign walked',
      async () => {
        const answer = await api(runtime, store.apiKey, 'GET', `/api/v1/campaigns/${campaignId}`);
        const data = (answer.body as { data?: { status: string; progress: Record<string, number> } }).data;
        return answer.status === 200 && data?.status === 'sent' ? data : undefined;
      },
      60_000,
    );
    expect(done.progress).toEqual({ recipients: 4, queued: 0, deferred: 0, skipped: 4, sent: 0, failed: 0 });
    const page = await api(runtime, store.apiKey, 'GET', `/api/v1/campaigns/${campaignId}/recipients?limit=10`);
    const list = (page.body as { data: { list: { status: string; reason?: string }[] } }).data.list;
    expect(list).toHaveLength(4);
    for (const recipient of list) expect(recipient).toMatchObject({ status: 'skipped', reason: 'daily_send_cap' });
    await sleep(2000);
    expect(campaignMails.get(campaignId) ?? 0).toBe(0);
  }, 240_000);
});
