/**
 * The general event interface end to end (spec "General event interface", "Errors", "Limits", "Authentication"), over
 * HTTP against the local runtime, the way a merchant's integration calls it: the API answers, the worker applies.
 * Every call goes through the typed client generated from the OpenAPI document (shared/client), which checks each
 * answer against the document: these tests prove the document by use. Webhook management, the contact export and the
 * served document are called the same way at the end.
 */

import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { sqs } from '#shared/adapters/aws-clients.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { dynamoProductRepository } from '#shared/adapters/dynamodb/product.repository.ts';
import { SendMessageBatchCommand, SendMessageCommand } from '#shared/adapters/sqs-client.ts';
import type { StoreflowClient } from '#shared/client/index.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import type { Product } from '#shared/domain/products/model.ts';
import { LIMITS } from '#shared/limits.ts';
import { logger } from '#shared/observability.ts';
import { apiClient } from '#test/support/api-client.ts';
import { eventually, newStore, type TestStore } from '#test/support/local.ts';
import { startReceiver } from '#test/support/webhooks.ts';

let runtime: LocalRuntime;
let shop: TestStore;
let sourceIds = 0;
const customers = dynamoCustomerRepository();
const products = dynamoProductRepository();

beforeAll(async () => {
  runtime = await startLocalRuntime();
  shop = await newStore('Events Shop');
});

afterAll(async () => {
  await runtime?.stop();
});

afterEach(() => {
  vi.restoreAllMocks();
});

const clients = new Map<string | null, StoreflowClient>();
/** The typed client of a store (`null`: no key). */
const clientOf = (apiKey: string | null): StoreflowClient => {
  let client = clients.get(apiKey);
  if (!client) {
    client = apiClient(runtime, apiKey ?? undefined);
    clients.set(apiKey, client);
  }
  return client;
};

/**
 * Posts an event with `apiKey` (the test shop's by default; `null` sends no key) through the typed client. Bodies the
 * types refuse (the refusals under test) are passed cast; a string is sent as is.
 */
const send = async (body: unknown, apiKey: string | null = shop.apiKey, contentType?: string) => {
  const { data, error, response } = await clientOf(apiKey).POST('/api/v1/events', {
    body: body as never,
    ...(typeof body === 'string' ? { bodySerializer: () => body } : {}),
    ...(contentType ? { headers: { 'content-type': contentType } } : {}),
  });
  return { status: response.status, headers: response.headers, body: (data ?? error) as Record<string, unknown> };
};

/** A source_id no other test uses. */
const sourceId = () => `src-${++sourceIds}-${Date.now()}`;

const customerEvent = (data: Record<string, unknown>, endpoint = 'customers/create', source_id = sourceId()) => ({
  endpoint,
  source_id,
  data: { email: `${String(data.id)}@example.com`, created_at: 1_700_000_000, ...data },
});

const productEvent = (data: Record<string, unknown>, endpoint = 'products/create') => ({
  endpoint,
  source_id: sourceId(),
  data: {
    title: 'Desk lamp',
    src: 'https://shop.example/lamp.jpg',
    purchase_url: 'https://shop.example/lamp',
    ...data,
  },
});

/** The stored customer once it reached `revision` (the worker applies asynchronously). */
const customerAt = (storeId: string, originId: string, revision = 1): Promise<Customer> =>
  eventually(`customer ${originId} at revision ${revision}`, async () => {
    const customer = await customers.get(storeId, originId);
    return customer && customer.revision >= revision ? customer : undefined;
  });

const productAt = (storeId: string, productId: string, revision = 1): Promise<Product> =>
  eventually(`product ${productId} at revision ${revision}`, async () => {
    const product = await products.get(storeId, productId);
    return product && product.revision >= revision ? product : undefined;
  });

describe('accepting events', () => {
  it('answers 200 ok for a new customer and the worker stores it', async () => {
    const answer = await send(
      customerEvent({ id: 'ada', first_name: 'Ada', created_at: 1_700_000_000_000, tag_value: 'level:gold' }),
    );
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.body).toEqual({ code: 200, message: 'ok' });

    const customer = await customerAt(shop.storeId, 'ada');
    expect(customer).toMatchObject({
      storeId: shop.storeId,
      originId: 'ada',
      email: 'ada@example.com',
      firstName: 'Ada',
      createdAt: 1_700_000_000,
      categoryTags: [{ category: 'level', value: 'gold' }],
      revision: 1,
    });
  });

  it('answers 304 when the source_id was seen before, with HTTP 200', async () => {
    const event = customerEvent({ id: 'dup-1' });
    expect((await send(event)).body).toEqual({ code: 200, message: 'ok' });
    const again = await send({ ...event, data: { ...event.data, first_name: 'Changed' } });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ code: 304, message: 'SourceId already exist' });
    const customer = await customerAt(shop.storeId, 'dup-1');
    expect(customer.firstName).toBeUndefined();
  });

  it('accepts exactly one of many identical requests racing, and queues it under one deduplication id', async () => {
    const racer = await newStore('Race Shop');
    const event = customerEvent({ id: 'racer' });
    const sendSpy = vi.spyOn(sqs(), 'send');
    const answers = await Promise.all(Array.from({ length: 50 }, () => send(event, racer.apiKey)));

    const codes = answers.map((a) => a.body.code);
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(codes.filter((c) => c === 200)).toHaveLength(1);
    expect(codes.filter((c) => c === 304)).toHaveLength(49);
    // A duplicate with the same data is sent again under the first send's deduplication id (in case that send never
    // happened, see accept-event.ts): SQS FIFO keeps one, so every send of the event must carry the same id.
    const sent = sendSpy.mock.calls
      .flatMap(([command]) => {
        if (command instanceof SendMessageCommand) return [command.input];
        if (command instanceof SendMessageBatchCommand) {
          return (command.input.Entries ?? []).map((entry) => ({ ...entry, QueueUrl: command.input.QueueUrl }));
        }
        return [];
      })
      .filter((m) => m.QueueUrl === runtime.queueUrls.ingest && String(m.MessageBody).includes(event.source_id));
    expect(sent.length).toBeGreaterThanOrEqual(1);
    expect(new Set(sent.map((m) => m.MessageDeduplicationId)).size).toBe(1);
    expect((await customerAt(racer.storeId, 'racer')).revision).toBe(1);
  });
});

describe('refusing requests', () => {
  it('answers 401 without an API key', async () => {
    const answer = await send(customerEvent({ id: 'nokey' }), null);
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ code: 401, message: expect.any(String) });
  });

  it('answers 401 for a well-formed key that belongs to no store', async () => {
    const answer = await send(customerEvent({ id: 'badkey' }), `shop_${'x'.repeat(40)}`);
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ code: 401, message: expect.any(String) });
  });

  it('answers 401 for a key of the wrong shape', async () => {
    const answer = await send(customerEvent({ id: 'badkey' }), 'not-a-key');
    expect(answer.status).toBe(401);
    expect(answer.body.code).toBe(401);
  });

  it('answers 401 before looking at the body', async () => {
    const answer = await send('{not json', null);
    expect(answer.status).toBe(401);
  });

  it('answers 412 naming source_id when it is longer than 50 characters', async () => {
    const answer = await send(customerEvent({ id: 'long' }, 'customers/create', 'x'.repeat(51)));
    expect(answer.status).toBe(412);
    expect(answer.body).toEqual({ code: 412, message: 'source_id must be at most 50 characters' });
  });

  it('answers 412 for malformed JSON', async () => {
    const answer = await send('{"endpoint": "customers/create",');
    expect(answer.status).toBe(412);
    expect(answer.body).toEqual({ code: 412, message: 'body is not valid JSON' });
  });

  it('answers 412 for a body that is not sent as application/json', async () => {
    const answer = await send(JSON.stringify(customerEvent({ id: 'plain' })), shop.apiKey, 'text/plain');
    expect(answer.status).toBe(412);
    expect(answer.body).toEqual({ code: 412, message: 'Content-Type must be application/json' });
  });

  it('accepts application/json with a charset', async () => {
    const answer = await send(customerEvent({ id: 'charset' }), shop.apiKey, 'application/json; charset=utf-8');
    expect(answer.body).toEqual({ code: 200, message: 'ok' });
  });

  it('answers 413 in the {code, message} shape for a 2 MB body', async () => {
    const event = customerEvent({ id: 'huge', padding: 'x'.repeat(2 * 1024 * 1024) });
    const answer = await send(event);
    expect(answer.status).toBe(413);
    expect(answer.body).toEqual({ code: 413, message: expect.stringContaining('larger than') });
  });

  it('answers 412 for an unknown endpoint', async () => {
    const answer = await send({ endpoint: 'customers/delete', source_id: sourceId(), data: { id: 'c' } });
    expect(answer.status).toBe(412);
    expect(answer.body.code).toBe(412);
    expect(answer.body.message).toMatch(/^endpoint must be one of: /);
  });

  it('answers 412 naming the payload field that fails', async () => {
    const answer = await send({
      endpoint: 'customers/create',
      source_id: sourceId(),
      data: { id: 'c', created_at: 1 },
    });
    expect(answer.status).toBe(412);
    expect(answer.body).toEqual({ code: 412, message: 'data.email is required' });
  });

  it('does not record a refused event: the corrected request with the same source_id is accepted', async () => {
    const id = sourceId();
    expect((await send({ endpoint: 'customers/create', source_id: id, data: { id: 'fixed' } })).status).toBe(412);
    expect((await send(customerEvent({ id: 'fixed' }, 'customers/create', id))).body).toEqual({
      code: 200,
      message: 'ok',
    });
  });
});

describe('applying events', () => {
  it('changes only the fields customers/update passes', async () => {
    await send(customerEvent({ id: 'upd', first_name: 'Grace', city: 'Arlington' }));
    await customerAt(shop.storeId, 'upd', 1);
    const answer = await send({
      endpoint: 'customers/update',
      source_id: sourceId(),
      data: { id: 'upd', city: 'NYC' },
    });
    expect(answer.body).toEqual({ code: 200, message: 'ok' });
    const customer = await customerAt(shop.storeId, 'upd', 2);
    expect(customer).toMatchObject({ firstName: 'Grace', city: 'NYC', email: 'upd@example.com' });
  });

  it('applies events of one customer in the order they were accepted', async () => {
    for (const city of ['A', 'B', 'C', 'D']) {
      const event =
        city === 'A'
          ? customerEvent({ id: 'ordered', city })
          : { endpoint: 'customers/update', source_id: sourceId(), data: { id: 'ordered', city } };
      expect((await send(event)).body.code).toBe(200);
    }
    expect((await customerAt(shop.storeId, 'ordered', 4)).city).toBe('D');
  });

  it('creates with customers, then updates the same customer by id', async () => {
    await send(customerEvent({ id: 'upsert', first_name: 'Lin' }, 'customers'));
    const first = await customerAt(shop.storeId, 'upsert', 1);
    await send(customerEvent({ id: 'upsert', last_name: 'Yu' }, 'customers'));
    const second = await customerAt(shop.storeId, 'upsert', 2);
    expect(second.id).toBe(first.id);
    expect(second).toMatchObject({ firstName: 'Lin', lastName: 'Yu' });
  });

  it('replaces the variants with products/update', async () => {
    await send(
      productEvent({
        id: 'lamp',
        variants: [
          { id: 'v1', price: '10.00' },
          { id: 'v2', price: 12 },
        ],
      }),
    );
    const created = await productAt(shop.storeId, 'lamp', 1);
    expect(created.variants.map((v) => [v.id, v.price])).toEqual([
      ['v1', '10.00'],
      ['v2', '12'],
    ]);
    await send(
      productEvent({ id: 'lamp', title: 'Desk lamp XL', variants: [{ id: 'v3', price: '15.5' }] }, 'products/update'),
    );
    const updated = await productAt(shop.storeId, 'lamp', 2);
    expect(updated).toMatchObject({ title: 'Desk lamp XL', variants: [{ id: 'v3', price: '15.5', attributes: {} }] });
    expect(updated.variants).toHaveLength(1);
    expect(updated.firstSeenAt).toBe(created.firstSeenAt);
  });

  it('keeps a customer with the same origin id apart in two stores', async () => {
    const other = await newStore('Other Shop');
    await send(customerEvent({ id: 'shared', first_name: 'First' }));
    await send(customerEvent({ id: 'shared', first_name: 'Second' }), other.apiKey);
    const mine = await customerAt(shop.storeId, 'shared');
    const theirs = await customerAt(other.storeId, 'shared');
    expect(mine.firstName).toBe('First');
    expect(theirs.firstName).toBe('Second');
    expect(mine.id).not.toBe(theirs.id);
    expect(theirs.storeId).toBe(other.storeId);
  });

  it('accepts the same source_id in another store', async () => {
    const other = await newStore('Second Shop');
    const event = customerEvent({ id: 'same-src' });
    expect((await send(event)).body.code).toBe(200);
    expect((await send(event, other.apiKey)).body.code).toBe(200);
  });
});

describe('per-store rate limit', () => {
  /**
   * Sends `prefix`-numbered events to one store in concurrent waves of 60 until a wave has a 429 (at most 10 waves):
   * on a loaded machine one wave can spread over two or three one-second windows and so stay within the limit.
   */
  const untilLimited = async (apiKey: string, prefix: string) => {
    const events: ReturnType<typeof customerEvent>[] = [];
    const answers: Awaited<ReturnType<typeof send>>[] = [];
    for (let wave = 0; wave < 10 && !answers.some((a) => a.status === 429); wave++) {
      const batch = Array.from({ length: 60 }, (_, i) => customerEvent({ id: `${prefix}-${events.length + i}` }));
      events.push(...batch);
      answers.push(...(await Promise.all(batch.map((event) => send(event, apiKey)))));
    }
    return { events, answers };
  };

  it('answers 429 with retry-after over 40 new events per second, without slowing down another store', async () => {
    const busy = await newStore('Busy Shop');
    const calm = await newStore('Calm Shop');
    const startedAt = Date.now();
    const [{ answers: busyAnswers }, calmAnswers] = await Promise.all([
      untilLimited(busy.apiKey, 'busy'),
      Promise.all(Array.from({ length: 20 }, (_, i) => send(customerEvent({ id: `calm-${i}` }), calm.apiKey))),
    ]);
    const windows = Math.floor(Date.now() / 1000) - Math.floor(startedAt / 1000) + 1;

    const accepted = busyAnswers.filter((a) => a.status === 200 && a.body.code === 200);
    const limited = busyAnswers.filter((a) => a.status === 429);
    expect(accepted.length + limited.length).toBe(busyAnswers.length);
    expect(accepted.length).toBeLessThanOrEqual(LIMITS.eventsPerSecond * windows);
    expect(limited.length).toBeGreaterThan(0);
    for (const answer of limited) {
      expect(answer.body).toEqual({ code: 429, message: expect.any(String) });
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    expect(calmAnswers.map((a) => a.body.code)).toEqual(Array(20).fill(200));
  });

  it('accepts a refused event when it is retried after the window', async () => {
    const busy = await newStore('Retry Shop');
    const { events, answers } = await untilLimited(busy.apiKey, 'retry');
    const refused = events.filter((_, i) => answers[i]?.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const retried = await send(refused[0], busy.apiKey);
    expect(retried.body).toEqual({ code: 200, message: 'ok' });
  });
});

describe('when the queue is unavailable', () => {
  it('answers 503 and forgets the event, so the same request retried is accepted', async () => {
    const event = customerEvent({ id: 'rollback' });
    // Only the API's send to the ingest queue fails: workers still busy with earlier tests send to other queues.
    const queueClient = sqs();
    const realSend = queueClient.send.bind(queueClient);
    let refusedOnce = false;
    vi.spyOn(queueClient, 'send').mockImplementation(((command: unknown, ...rest: never[]) => {
      if (
        !refusedOnce &&
        command instanceof SendMessageCommand &&
        command.input.QueueUrl === runtime.queueUrls.ingest
      ) {
        refusedOnce = true;
        return Promise.reject(new Error('SQS is down'));
      }
      return realSend(command as never, ...rest);
    }) as never);
    const logged = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const failed = await send(event);
    expect(failed.status).toBe(503);
    expect(failed.body).toEqual({ code: 503, message: expect.any(String) });
    expect(String(failed.body.message)).not.toContain('SQS is down');
    // Operators see the cause; the caller does not.
    expect(logged).toHaveBeenCalledWith('Dependency unavailable', expect.anything());

    const retried = await send(event);
    expect(retried.status).toBe(200);
    expect(retried.body).toEqual({ code: 200, message: 'ok' });
    expect((await customerAt(shop.storeId, 'rollback')).revision).toBe(1);
  });
});

describe('through the typed client: webhooks, export and the API description', () => {
  it('manages a webhook subscription and lists its signed delivery', async () => {
    const store = await newStore('Client Webhooks Shop');
    const client = clientOf(store.apiKey);
    const receiver = await startReceiver();
    try {
      const created = await client.POST('/api/v1/webhooks', {
        body: { topic: 'customer/newsletter', url: receiver.url('/newsletter') },
      });
      expect(created.response.status).toBe(200);
      const webhook = created.data?.data;
      expect(webhook).toMatchObject({ topic: 'customer/newsletter', format: 'json' });
      if (!webhook) throw new Error('no webhook record');

      const refused = await client.POST('/api/v1/webhooks', {
        body: { topic: 'customer/unknown' as never, url: receiver.url('/x') },
      });
      expect(refused.response.status).toBe(400);
      expect(refused.error).toEqual({ code: 400, message: 'Topic noneffective' });

      const updated = await client.PUT('/api/v1/webhooks', {
        body: { topic: 'customer/newsletter', url: receiver.url('/newsletter-2') },
      });
      expect(updated.data?.data.url).toBe(receiver.url('/newsletter-2'));
      const list = await client.GET('/api/v1/webhooks');
      expect(list.data?.data).toEqual({ list: [updated.data?.data], total: 1 });
      expect((await client.GET('/api/v1/webhooks/count')).data?.data).toBe(1);

      // A form subscriber on the front host (the client sends it there) is announced to the subscription.
      const headless = await client.POST('/api/v1/headless/events', {
        body: {
          endpoint: 'customers/create',
          source_id: sourceId(),
          data: { id: 'sub-1', created_at: 1_700_000_000, email: 'sub@example.com' },
        },
      });
      expect(headless.data).toEqual({ success: true });
      const [received] = await receiver.waitFor('/newsletter-2', 1);
      expect(received?.headers['x-service-topic']).toBe('customer/newsletter');

      const webHookId = updated.data?.data.id ?? '';
      const delivered = await eventually('the delivery to be listed delivered', async () => {
        const page = await client.GET('/api/v1/webhooks/{webHookId}/deliveries', {
          params: { path: { webHookId }, query: { limit: '10' } },
        });
        const [delivery] = page.data?.data.list ?? [];
        return delivery?.status === 'delivered' ? delivery : undefined;
      });
      expect(delivered.attempts[0]).toMatchObject({ statusCode: 200, outcome: 'delivered' });

      const retry = await client.POST('/api/v1/webhooks/deliveries/{deliveryId}/retry', {
        params: { path: { deliveryId: delivered.id } },
      });
      expect(retry.response.status).toBe(409);

      const removed = await client.DELETE('/api/v1/webhooks/{webHookId}', { params: { path: { webHookId } } });
      expect(removed.data).toEqual({ code: 200, data: true });
      const again = await client.DELETE('/api/v1/webhooks/{webHookId}', { params: { path: { webHookId } } });
      expect(again.error).toEqual({ code: 404, message: 'Webhook not found' });
    } finally {
      await receiver.close();
    }
  });

  it('exports the contacts page by page from the front host', async () => {
    const store = await newStore('Client Export Shop');
    const client = clientOf(store.apiKey);
    for (const id of ['exp-1', 'exp-2', 'exp-3']) {
      expect((await send(customerEvent({ id, country_code: 'de' }), store.apiKey)).body.code).toBe(200);
    }
    await customerAt(store.storeId, 'exp-3');
    await customerAt(store.storeId, 'exp-1');
    await customerAt(store.storeId, 'exp-2');

    /** The export allows one call per second per store: a 429 is waited out, as its Retry-After says. */
    const exportPage = async (query: Record<string, string>) => {
      for (;;) {
        const answer = await client.GET('/api/v1/audience', { params: { query } });
        if (answer.response.status !== 429) return answer;
        await new Promise((r) => setTimeout(r, Number(answer.response.headers.get('retry-after') ?? 1) * 1000));
      }
    };
    const first = await exportPage({ page: '1', page_size: '2' });
    expect(first.data).toMatchObject({ page: 1, page_size: 2, total_count: 3, total_pages: 2 });
    expect(first.data?.data).toHaveLength(2);
    expect(first.data?.data[0]).toMatchObject({ country: 'DE', email_subscribed: false, tags: [] });
    const second = await exportPage({ page: '2', page_size: '2' });
    expect(second.data?.data.map((c) => c.origin_id)).toHaveLength(1);
    const origins = [...(first.data?.data ?? []), ...(second.data?.data ?? [])].map((c) => c.origin_id).sort();
    expect(origins).toEqual(['exp-1', 'exp-2', 'exp-3']);

    const tooLarge = await exportPage({ page_size: '5001' });
    expect(tooLarge.response.status).toBe(400);
    expect(tooLarge.error).toEqual({ code: 400, message: 'page_size must be at most 5000' });
  });

  it('serves the API description on every host without a key, naming the hosts it runs on', async () => {
    const anonymous = clientOf(null);
    const answer = await anonymous.GET('/api/v1/openapi.json');
    expect(answer.response.status).toBe(200);
    const served = answer.data as {
      openapi: string;
      paths: Record<string, Record<string, { servers: { url: string }[] }>>;
    };
    expect(served.openapi).toBe('3.1.0');
    expect(served.paths['/api/v1/events']?.post?.servers[0]?.url).toBe(runtime.urls.main);
    expect(served.paths['/api/v1/audience']?.get?.servers[0]?.url).toBe(runtime.urls.front);

    for (const host of ['front', 'sending'] as const) {
      const response = await fetch(`${runtime.urls[host]}/api/v1/openapi.json`);
      expect(response.status).toBe(200);
      expect(((await response.json()) as { openapi: string }).openapi).toBe('3.1.0');
    }
    const etag = answer.response.headers.get('etag') ?? '';
    expect(answer.response.headers.get('cache-control')).toBe('public, max-age=300');
    const unchanged = await fetch(`${runtime.urls.main}/api/v1/openapi.json`, { headers: { 'if-none-match': etag } });
    expect(unchanged.status).toBe(304);
  });
});
