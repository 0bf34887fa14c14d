/**
 * Webhook management over HTTP against the local runtime (spec "Webhook management", "Webhook record", "Errors",
 * "Limits", "Authentication"): the `{code, data}` answers, one subscription per topic, the validation messages, the
 * 401/404/409/429 answers (409 also for a re-send that loses a race with a concurrent write of the delivery), and that
 * a store never reaches another store's subscriptions or deliveries.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoDeliveryRepository } from '#shared/adapters/dynamodb/webhook.repositories.ts';
import { type Delivery, deliveryIdOf } from '#shared/domain/webhooks/delivery.ts';
import { addClientMiddleware } from '#test/support/aws-faults.ts';
import { acceptedHeadless, sourceId, uid } from '#test/support/harness.ts';
import { newStore, type TestStore } from '#test/support/local.ts';
import {
  api,
  awaitDelivery,
  freshPath,
  type Receiver,
  startReceiver,
  subscribe,
  type WebhookRecord,
} from '#test/support/webhooks.ts';

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

const HOOK = 'https://hooks.example.com/storeflow';

const list = async (store: TestStore) => {
  const answer = await api(runtime, store.apiKey, 'GET', '/api/v1/webhooks');
  expect(answer.status).toBe(200);
  return answer.body as { code: number; data: { list: WebhookRecord[]; total: number } };
};

const count = async (store: TestStore) => {
  const answer = await api(runtime, store.apiKey, 'GET', '/api/v1/webhooks/count');
  expect(answer.status).toBe(200);
  return answer.body as { code: number; data: number };
};

describe('POST /api/v1/webhooks', () => {
  it('answers {code: 200, data: {id, topic, url, format: "json", createdAt}} with createdAt in seconds', async () => {
    const store = await newStore('Webhooks create');
    const before = Math.floor(Date.now() / 1000);
    const answer = await api(runtime, store.apiKey, 'POST', '/api/v1/webhooks', {
      topic: 'customer/newsletter',
      url: HOOK,
    });
    const after = Math.ceil(Date.now() / 1000);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      code: 200,
      data: {
        id: expect.any(String),
        topic: 'customer/newsletter',
        url: HOOK,
        format: 'json',
        createdAt: expect.any(Number),
      },
    });
    const { createdAt, id } = (answer.body as { data: WebhookRecord }).data;
    expect(Number.isInteger(createdAt)).toBe(true);
    expect(createdAt).toBeGreaterThanOrEqual(before);
    expect(createdAt).toBeLessThanOrEqual(after);
    expect(id).not.toBe('');
  });

  it('accepts each of the four topics of the spec', async () => {
    const store = await newStore('Webhooks topics');
    const topics = ['bulk_operations/finish', 'customer/newsletter', 'customer/marketing', 'transmission/callback'];
    for (const topic of topics) await subscribe(runtime, store, topic, `${HOOK}/${topic}`);
    const { data } = await list(store);
    expect(data.list.map((w) => w.topic).sort()).toEqual([...topics].sort());
    expect(data.total).toBe(4);
  });

  it('overwrites the subscription when the same topic is created again: one record, the new url', async () => {
    const store = await newStore('Webhooks overwrite');
    const first = await subscribe(runtime, store, 'customer/marketing', `${HOOK}/first`);
    const other = await subscribe(runtime, store, 'customer/newsletter', `${HOOK}/other`);
    const second = await subscribe(runtime, store, 'customer/marketing', `${HOOK}/second`);
    expect(second.url).toBe(`${HOOK}/second`);

    const { data } = await list(store);
    const marketing = data.list.filter((w) => w.topic === 'customer/marketing');
    expect(marketing).toEqual([second]);
    expect(data.list.find((w) => w.id === first.id)).toBeUndefined();
    expect(data.list).toContainEqual(other);
    expect(data.total).toBe(2);
    expect((await count(store)).data).toBe(2);
  });
});

describe('PUT /api/v1/webhooks', () => {
  it('changes the url of the subscription matched by topic and keeps its id, topic and createdAt', async () => {
    const store = await newStore('Webhooks update');
    const created = await subscribe(runtime, store, 'customer/newsletter', `${HOOK}/old`);
    const answer = await api(runtime, store.apiKey, 'PUT', '/api/v1/webhooks', {
      topic: 'customer/newsletter',
      url: `${HOOK}/new`,
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      code: 200,
      data: { ...created, url: `${HOOK}/new` },
    });
    const { data } = await list(store);
    expect(data.list).toEqual([{ ...created, url: `${HOOK}/new` }]);
  });

  it('answers 404 {code: 404, message} for a topic the store has not subscribed, and creates nothing', async () => {
    const store = await newStore('Webhooks update missing');
    await subscribe(runtime, store, 'customer/newsletter', HOOK);
    const answer = await api(runtime, store.apiKey, 'PUT', '/api/v1/webhooks', {
      topic: 'customer/marketing',
      url: HOOK,
    });
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ code: 404, message: expect.any(String) });
    expect((await count(store)).data).toBe(1);
  });

  it('validates topic and url like POST', async () => {
    const store = await newStore('Webhooks update invalid');
    await subscribe(runtime, store, 'customer/newsletter', HOOK);
    const badTopic = await api(runtime, store.apiKey, 'PUT', '/api/v1/webhooks', { topic: 'customer/nope', url: HOOK });
    expect(badTopic.status).toBe(400);
    expect(badTopic.body).toEqual({ code: 400, message: 'Topic noneffective' });
    const badUrl = await api(runtime, store.apiKey, 'PUT', '/api/v1/webhooks', {
      topic: 'customer/newsletter',
      url: 'ftp://example.com/x',
    });
    expect(badUrl.status).toBe(400);
    expect(badUrl.body).toEqual({ code: 400, message: expect.stringMatching(/url/) });
    expect((await list(store)).data.list[0]?.url).toBe(HOOK);
  });
});

describe('GET /api/v1/webhooks, GET /api/v1/webhooks/count, DELETE /api/v1/webhooks/{webHookId}', () => {
  it('lists {list: [records with id], total} and counts {code: 200, data: n}; an empty store has none', async () => {
    const store = await newStore('Webhooks list');
    expect(await list(store)).toEqual({ code: 200, data: { list: [], total: 0 } });
    expect(await count(store)).toEqual({ code: 200, data: 0 });

    const a = await subscribe(runtime, store, 'customer/newsletter', `${HOOK}/a`);
    const b = await subscribe(runtime, store, 'transmission/callback', `${HOOK}/b`);
    const listed = await list(store);
    expect(listed.code).toBe(200);
    expect(listed.data.total).toBe(2);
    expect(listed.data.list).toHaveLength(2);
    expect(listed.data.list).toEqual(expect.arrayContaining([a, b]));
    for (const record of listed.data.list) {
      expect(Object.keys(record).sort()).toEqual(['createdAt', 'format', 'id', 'topic', 'url']);
    }
    expect(await count(store)).toEqual({ code: 200, data: 2 });
  });

  it('deletes by id ({code: 200, data: true}); the count drops and the record is gone', async () => {
    const store = await newStore('Webhooks delete');
    const keep = await subscribe(runtime, store, 'customer/newsletter', `${HOOK}/keep`);
    const drop = await subscribe(runtime, store, 'customer/marketing', `${HOOK}/drop`);
    expect((await count(store)).data).toBe(2);

    const answer = await api(runtime, store.apiKey, 'DELETE', `/api/v1/webhooks/${drop.id}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ code: 200, data: true });
    expect(await count(store)).toEqual({ code: 200, data: 1 });
    expect((await list(store)).data.list).toEqual([keep]);

    const again = await api(runtime, store.apiKey, 'DELETE', `/api/v1/webhooks/${drop.id}`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ code: 404, message: expect.any(String) });
  });

  it('answers 404 {code: 404, message} to DELETE of an unknown id', async () => {
    const store = await newStore('Webhooks delete unknown');
    await subscribe(runtime, store, 'customer/newsletter', HOOK);
    const answer = await api(runtime, store.apiKey, 'DELETE', '/api/v1/webhooks/wh_doesnotexist');
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ code: 404, message: expect.any(String) });
    expect((await count(store)).data).toBe(1);
  });
});

describe('validation (HTTP 400, {code: 400, message})', () => {
  let store: TestStore;
  beforeAll(async () => {
    store = await newStore('Webhooks validation');
  });

  const create = (body: unknown) => api(runtime, store.apiKey, 'POST', '/api/v1/webhooks', body);

  it.each([
    ['an unknown topic', { topic: 'customer/unknown', url: HOOK }],
    ['a topic in another case', { topic: 'Customer/Newsletter', url: HOOK }],
    ['an empty topic', { topic: '', url: HOOK }],
    ['a missing topic', { url: HOOK }],
    ['a non-string topic', { topic: 42, url: HOOK }],
  ])('answers {code: 400, message: "Topic noneffective"} to %s', async (_, body) => {
    const answer = await create(body);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ code: 400, message: 'Topic noneffective' });
  });

  it.each([
    ['an empty url', ''],
    ['a blank url', '   '],
    ['a missing url', undefined],
    ['a null url', null],
    ['a 501-character url', `https://example.com/${'a'.repeat(501 - 'https://example.com/'.length)}`],
    ['an ftp url', 'ftp://example.com/hook'],
    ['a plain http url to a public host', 'http://example.com/hook'],
    ['a url with credentials', 'https://user:pw@example.com/hook'],
    ['a relative url', '/hook'],
  ])('answers 400 naming url to %s', async (_, url) => {
    const answer = await create({ topic: 'customer/newsletter', url });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ code: 400, message: expect.stringMatching(/\burl\b/) });
  });

  it('accepts a url of exactly 500 characters', async () => {
    const url = `https://example.com/${'a'.repeat(500 - 'https://example.com/'.length)}`;
    expect(url).toHaveLength(500);
    const answer = await create({ topic: 'bulk_operations/finish', url });
    expect(answer.status).toBe(200);
    expect((answer.body as { data: WebhookRecord }).data.url).toBe(url);
  });

  it('answers 400 to a body that is not JSON or not sent as JSON', async () => {
    const notJson = await create('{topic: nope');
    expect(notJson.status).toBe(400);
    expect(notJson.body).toEqual({ code: 400, message: expect.any(String) });
    const response = await fetch(`${runtime.urls.main}/api/v1/webhooks`, {
      method: 'POST',
      headers: { 'x-service-access-token': store.apiKey, 'content-type': 'text/plain' },
      body: JSON.stringify({ topic: 'customer/newsletter', url: HOOK }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: 400, message: expect.any(String) });
  });

  it('stores nothing for a refused request', async () => {
    expect(await count(store)).toEqual({ code: 200, data: 1 }); // only the 500-character one
  });
});

describe('authentication (401 {code: 401, message})', () => {
  const calls: [string, 'GET' | 'POST' | 'PUT' | 'DELETE', string, unknown][] = [
    ['create', 'POST', '/api/v1/webhooks', { topic: 'customer/newsletter', url: HOOK }],
    ['update', 'PUT', '/api/v1/webhooks', { topic: 'customer/newsletter', url: HOOK }],
    ['list', 'GET', '/api/v1/webhooks', undefined],
    ['count', 'GET', '/api/v1/webhooks/count', undefined],
    ['delete', 'DELETE', '/api/v1/webhooks/wh_x', undefined],
    ['deliveries', 'GET', '/api/v1/webhooks/wh_x/deliveries', undefined],
    ['retry', 'POST', '/api/v1/webhooks/deliveries/dl_x/retry', undefined],
  ];
  const badKeys: [string, string | undefined][] = [
    ['missing', undefined],
    ['empty', ''],
    ['malformed', 'not-a-key'],
    ['unknown', `shop_${'Z'.repeat(40)}`],
  ];

  it.each(calls)('refuses %s without a valid key', async (_, method, path, body) => {
    for (const [label, key] of badKeys) {
      const answer = await api(runtime, key, method, path, body);
      expect(answer.status, `${label} key`).toBe(401);
      expect(answer.body, `${label} key`).toEqual({ code: 401, message: expect.any(String) });
    }
  });

  it('does not create anything for a caller without a valid key', async () => {
    const store = await newStore('Webhooks auth');
    await api(runtime, undefined, 'POST', '/api/v1/webhooks', { topic: 'customer/newsletter', url: HOOK });
    await api(runtime, `${store.apiKey}x`, 'POST', '/api/v1/webhooks', { topic: 'customer/newsletter', url: HOOK });
    expect(await count(store)).toEqual({ code: 200, data: 0 });
  });
});

describe('store isolation', () => {
  let storeA: TestStore;
  let storeB: TestStore;
  let hookA: WebhookRecord;
  let deliveryId: string;

  beforeAll(async () => {
    storeA = await newStore('Webhooks tenant A');
    storeB = await newStore('Webhooks tenant B');
    const path = freshPath('tenant-a');
    hookA = await subscribe(runtime, storeA, 'customer/newsletter', receiver.url(path));
    const id = uid('cust');
    await acceptedHeadless(
      runtime,
      storeA,
      'customers/create',
      { id, created_at: 1_700_000_000, email: `${id}@example.com` },
      sourceId('iso'),
    );
    const delivery = await awaitDelivery(runtime, storeA, hookA.id, (d) => d.status === 'delivered');
    deliveryId = delivery.id;
  });

  it("does not show store A's webhook in store B's list or count", async () => {
    expect((await list(storeB)).data).toEqual({ list: [], total: 0 });
    expect((await count(storeB)).data).toBe(0);
  });

  it("answers 404 to store B deleting store A's webhook, which stays", async () => {
    const answer = await api(runtime, storeB.apiKey, 'DELETE', `/api/v1/webhooks/${hookA.id}`);
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ code: 404, message: expect.any(String) });
    expect((await list(storeA)).data.list).toEqual([hookA]);
  });

  it("answers 404 to store B listing the deliveries of store A's webhook", async () => {
    const own = await api(runtime, storeA.apiKey, 'GET', `/api/v1/webhooks/${hookA.id}/deliveries`);
    expect(own.status).toBe(200);
    const answer = await api(runtime, storeB.apiKey, 'GET', `/api/v1/webhooks/${hookA.id}/deliveries`);
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ code: 404, message: expect.any(String) });
  });

  it("answers 404 to store B re-sending store A's delivery, and leaves it as it was", async () => {
    const answer = await api(runtime, storeB.apiKey, 'POST', `/api/v1/webhooks/deliveries/${deliveryId}/retry`);
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ code: 404, message: expect.any(String) });
    const [delivery] = (
      (await api(runtime, storeA.apiKey, 'GET', `/api/v1/webhooks/${hookA.id}/deliveries`)).body as {
        data: { list: { id: string; status: string }[] };
      }
    ).data.list;
    expect(delivery).toMatchObject({ id: deliveryId, status: 'delivered' });
  });

  it("does not let store B's PUT change store A's subscription", async () => {
    const answer = await api(runtime, storeB.apiKey, 'PUT', '/api/v1/webhooks', {
      topic: 'customer/newsletter',
      url: `${HOOK}/hijack`,
    });
    expect(answer.status).toBe(404);
    expect((await list(storeA)).data.list).toEqual([hookA]);
  });

  it('answers 409 to re-sending a delivered delivery and 404 to an unknown delivery id', async () => {
    const delivered = await api(runtime, storeA.apiKey, 'POST', `/api/v1/webhooks/deliveries/${deliveryId}/retry`);
    expect(delivered.status).toBe(409);
    expect(delivered.body).toEqual({ code: 409, message: expect.any(String) });
    const unknown = await api(runtime, storeA.apiKey, 'POST', '/api/v1/webhooks/deliveries/dl_unknown/retry');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ code: 404, message: expect.any(String) });
  });
});

describe('GET /api/v1/webhooks/{webHookId}/deliveries', () => {
  it('lists deliveries newest first, page by page with nextCursor', async () => {
    const store = await newStore('Webhooks deliveries pages');
    const path = freshPath('pages');
    const hook = await subscribe(runtime, store, 'customer/newsletter', receiver.url(path));
    const ids: string[] = [];
    for (let i = 1; i <= 3; i++) {
      const id = uid('page');
      await acceptedHeadless(runtime, store, 'customers/create', {
        id,
        created_at: 1_700_000_000,
        email: `${id}@example.com`,
      });
      ids.push(id);
      await receiver.waitFor(path, i);
      await new Promise((resolve) => setTimeout(resolve, 5)); // distinct creation times
    }
    const deliveredIds = receiver
      .received(path)
      .map((r) => r.headers['x-service-delivery-id'])
      .reverse();

    const first = await api(runtime, store.apiKey, 'GET', `/api/v1/webhooks/${hook.id}/deliveries?limit=2`);
    expect(first.status).toBe(200);
    const page1 = (first.body as { data: { list: { id: string }[]; nextCursor?: string } }).data;
    expect(page1.list.map((d) => d.id)).toEqual(deliveredIds.slice(0, 2));
    expect(page1.nextCursor).toEqual(expect.any(String));

    const second = await api(
      runtime,
      store.apiKey,
      'GET',
      `/api/v1/webhooks/${hook.id}/deliveries?limit=2&cursor=${encodeURIComponent(page1.nextCursor ?? '')}`,
    );
    const page2 = (second.body as { data: { list: { id: string }[]; nextCursor?: string } }).data;
    expect(page2.list.map((d) => d.id)).toEqual(deliveredIds.slice(2));
    expect(page2.nextCursor).toBeUndefined();
  });

  it.each(['0', '101', 'abc', '1.5'])('answers 400 to limit=%s', async (limit) => {
    const store = await newStore('Webhooks deliveries limit');
    const hook = await subscribe(runtime, store, 'customer/newsletter', HOOK);
    const answer = await api(runtime, store.apiKey, 'GET', `/api/v1/webhooks/${hook.id}/deliveries?limit=${limit}`);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ code: 400, message: expect.stringMatching(/limit/) });
  });

  it('answers 400 to a cursor that is not one of this list', async () => {
    const store = await newStore('Webhooks deliveries cursor');
    const hook = await subscribe(runtime, store, 'customer/newsletter', HOOK);
    const foreign = Buffer.from(JSON.stringify({ pk: 'x', gsi1pk: 'other', gsi1sk: 'y' })).toString('base64url');
    for (const cursor of ['garbage', foreign]) {
      const answer = await api(runtime, store.apiKey, 'GET', `/api/v1/webhooks/${hook.id}/deliveries?cursor=${cursor}`);
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ code: 400, message: expect.stringMatching(/cursor/) });
    }
  });
});

describe('POST /api/v1/webhooks/deliveries/{deliveryId}/retry while the delivery is written concurrently', () => {
  const deliveries = dynamoDeliveryRepository();

  /** A store subscribed to a fresh receiver path, and one delivery of it that failed for good (written directly). */
  const failedDelivery = async (name: string) => {
    const store = await newStore(`Webhooks retry ${name}`);
    const path = freshPath(name);
    const hook = await subscribe(runtime, store, 'customer/newsletter', receiver.url(path));
    const eventId = `newsletter#${uid(name)}`;
    const now = Date.now();
    const delivery: Delivery = {
      storeId: store.storeId,
      id: deliveryIdOf(hook.id, eventId),
      webhookId: hook.id,
      topic: 'customer/newsletter',
      url: hook.url,
      eventId,
      body: JSON.stringify({ email: `${name}@example.com` }),
      status: 'failed',
      attempts: [{ at: now - 1000, statusCode: 503, latencyMs: 5, outcome: 'rejected' }],
      reason: 'no HTTP 200 after 6 attempts',
      createdAt: now - 60_000,
      updatedAt: now - 1000,
      revision: 7,
    };
    await deliveries.save(delivery, 0);
    return { store, path, hook, delivery };
  };

  /**
   * Another writer (the delivery worker, another request) changes the delivery just before each of the retry's next
   * `times` writes of it reaches DynamoDB: a real conditional-write race, lost by the retry.
   */
  const interfere = (storeId: string, deliveryId: string, times: number) => {
    const seen = { interfered: 0 };
    let writing = false;
    removals.push(
      addClientMiddleware('dynamodb', (next, context) => async (args) => {
        const retryWrite =
          context.commandName === 'PutItemCommand' &&
          !writing &&
          seen.interfered < times &&
          JSON.stringify(args.input).includes(deliveryId);
        if (retryWrite) {
          seen.interfered++;
          writing = true;
          try {
            const current = await deliveries.get(storeId, deliveryId);
            if (!current) throw new Error(`no delivery ${deliveryId}`);
            await deliveries.save(
              { ...current, updatedAt: Date.now(), revision: current.revision + 1 },
              current.revision,
            );
          } finally {
            writing = false;
          }
        }
        return next(args);
      }),
    );
    return seen;
  };

  const removals: (() => void)[] = [];
  afterEach(() => {
    for (const remove of removals.splice(0)) remove();
  });

  it('re-reads a delivery changed between its read and its write and re-sends it: 200, then delivered once', async () => {
    const { store, path, hook, delivery } = await failedDelivery('retry-raced-once');
    const seen = interfere(store.storeId, delivery.id, 1);

    const answer = await api(runtime, store.apiKey, 'POST', `/api/v1/webhooks/deliveries/${delivery.id}/retry`);

    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ code: 200, data: { id: delivery.id, status: 'pending' } });
    expect(seen.interfered).toBe(1);
    const delivered = await awaitDelivery(runtime, store, hook.id, (d) => d.status === 'delivered');
    expect(delivered.attempts.at(-1)).toMatchObject({ statusCode: 200, outcome: 'delivered' });
    expect(receiver.received(path)).toHaveLength(1);
  });

  it('answers 409 {code: 409, message} when the delivery changes under both its writes, and leaves it failed', async () => {
    const { store, hook, delivery } = await failedDelivery('retry-raced-always');
    const seen = interfere(store.storeId, delivery.id, Number.POSITIVE_INFINITY);

    const answer = await api(runtime, store.apiKey, 'POST', `/api/v1/webhooks/deliveries/${delivery.id}/retry`);

    expect(answer.status).toBe(409);
    expect(answer.body).toEqual({ code: 409, message: 'The delivery is being changed by another request; retry' });
    expect(seen.interfered).toBe(2);
    const listed = await api(runtime, store.apiKey, 'GET', `/api/v1/webhooks/${hook.id}/deliveries`);
    expect(listed.body).toMatchObject({ code: 200, data: { list: [{ id: delivery.id, status: 'failed' }] } });
  });
});

describe('rate limit (429 "too frequent")', () => {
  it('answers some of 30 concurrent GETs of one store with 429 {code: 429} and retry-after; another store is unaffected', async () => {
    const busy = await newStore('Webhooks busy');
    const quiet = await newStore('Webhooks quiet');
    const [burst, others] = await Promise.all([
      Promise.all(
        Array.from({ length: 30 }, () =>
          api(runtime, busy.apiKey, 'GET', '/api/v1/webhooks', undefined, { raw: true }),
        ),
      ),
      Promise.all(
        Array.from({ length: 5 }, () =>
          api(runtime, quiet.apiKey, 'GET', '/api/v1/webhooks', undefined, { raw: true }),
        ),
      ),
    ]);
    const limited = burst.filter((a) => a.status === 429);
    const served = burst.filter((a) => a.status === 200);
    expect(limited.length).toBeGreaterThan(0);
    expect(served.length).toBeGreaterThan(0);
    expect(limited.length + served.length).toBe(30);
    for (const answer of limited) {
      expect(answer.body).toEqual({ code: 429, message: expect.any(String) });
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    for (const answer of served) expect(answer.body).toEqual({ code: 200, data: { list: [], total: 0 } });
    expect(others.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
  });

  it('serves the store again once the window has passed', async () => {
    const store = await newStore('Webhooks recover');
    // At the start of a wall-clock second, and four times the limit: a loaded machine may spread the burst over two
    // or three one-second windows, and some of it is still over the limit.
    await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000)));
    const burst = await Promise.all(
      Array.from({ length: 40 }, () =>
        api(runtime, store.apiKey, 'GET', '/api/v1/webhooks/count', undefined, { raw: true }),
      ),
    );
    const limited = burst.find((a) => a.status === 429);
    expect(limited).toBeDefined();
    await new Promise((resolve) =>
      setTimeout(resolve, Number(limited?.headers.get('retry-after') ?? '1') * 1000 + 100),
    );
    const later = await api(runtime, store.apiKey, 'GET', '/api/v1/webhooks/count', undefined, { raw: true });
    expect(later.status).toBe(200);
    expect(later.body).toEqual({ code: 200, data: 0 });
  });
});
