/**
 * The general event interface end to end (spec "General event interface", "Errors", "Limits", "Authentication"), over
 * HTTP against the local runtime, the way a merchant's integration calls it: the API answers, the worker applies.
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '../../infra/local/runtime.ts';
import { sqs } from '../../shared/adapters/aws-clients.ts';
import { dynamoCustomerRepository } from '../../shared/adapters/dynamodb/customer.repository.ts';
import { dynamoProductRepository } from '../../shared/adapters/dynamodb/product.repository.ts';
import type { Customer } from '../../shared/domain/customers/customer.ts';
import type { Product } from '../../shared/domain/products/product.ts';
import { LIMITS } from '../../shared/limits.ts';
import { logger } from '../../shared/observability.ts';
import { eventually, newStore, postEvent, type TestStore } from '../support/local.ts';

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

/** Posts an event with `apiKey` (the test shop's by default; `null` sends no key). */
const send = (body: unknown, apiKey: string | null = shop.apiKey, contentType?: string) =>
  postEvent(runtime.urls.main, apiKey ?? undefined, body, contentType ? { contentType } : {});

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

  it('accepts exactly one of many identical requests racing, and queues it once', async () => {
    const racer = await newStore('Race Shop');
    const event = customerEvent({ id: 'racer' });
    const sendSpy = vi.spyOn(sqs(), 'send');
    const answers = await Promise.all(Array.from({ length: 50 }, () => send(event, racer.apiKey)));

    const codes = answers.map((a) => a.body.code);
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(codes.filter((c) => c === 200)).toHaveLength(1);
    expect(codes.filter((c) => c === 304)).toHaveLength(49);
    const sends = sendSpy.mock.calls.filter(
      ([command]) =>
        command instanceof SendMessageCommand && String(command.input.MessageBody).includes(event.source_id),
    );
    expect(sends).toHaveLength(1);
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
  it('answers 429 with retry-after over 40 new events per second, without slowing down another store', async () => {
    const busy = await newStore('Busy Shop');
    const calm = await newStore('Calm Shop');
    const startedAt = Date.now();
    const [busyAnswers, calmAnswers] = await Promise.all([
      Promise.all(Array.from({ length: 120 }, (_, i) => send(customerEvent({ id: `busy-${i}` }), busy.apiKey))),
      Promise.all(Array.from({ length: 20 }, (_, i) => send(customerEvent({ id: `calm-${i}` }), calm.apiKey))),
    ]);
    const windows = Math.floor(Date.now() / 1000) - Math.floor(startedAt / 1000) + 1;

    const accepted = busyAnswers.filter((a) => a.status === 200 && a.body.code === 200);
    const limited = busyAnswers.filter((a) => a.status === 429);
    expect(accepted.length + limited.length).toBe(120);
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
    const events = Array.from({ length: 100 }, (_, i) => customerEvent({ id: `retry-${i}` }));
    const answers = await Promise.all(events.map((event) => send(event, busy.apiKey)));
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
    vi.spyOn(sqs(), 'send').mockRejectedValueOnce(new Error('SQS is down') as never);
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
