/**
 * An import from start to finish through the real routes and worker (spec "Contact batch import", "Events" →
 * `bulk_operations/finish`): per-line validation with line numbers and reasons, the job's counts and result, and the
 * signed finish webhook at a real local receiver, for a mostly good file (SUCCESS) and an all-bad one (FAIL).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { newStore, type TestStore } from '#test/support/local.ts';
import { freshPath, type Receiver, settled, startReceiver, subscribe } from '#test/support/webhooks.ts';
import { contactCount, customer, hmac, importAndWait, jsonl, uid } from './support.ts';

let runtime: LocalRuntime;
let receiver: Receiver;
const customers = dynamoCustomerRepository();

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
  receiver = await startReceiver();
});

afterAll(async () => {
  await receiver?.close();
  await runtime?.stop();
});

/** A fresh store subscribed to `bulk_operations/finish` at a fresh receiver path. */
const subscribedStore = async (): Promise<{ store: TestStore; path: string }> => {
  const store = await newStore('Import finish');
  const path = freshPath('bulk-finish');
  await subscribe(runtime, store, 'bulk_operations/finish', receiver.url(path));
  return { store, path };
};

/** The only finish delivery to `path`, checked for its signature and topic, parsed. */
const onlyFinishBody = async (path: string, store: TestStore) => {
  const [request] = await receiver.waitFor(path, 1, 15_000);
  await settled(runtime);
  expect(receiver.received(path)).toHaveLength(1);
  if (!request) throw new Error('no request');
  expect(request.method).toBe('POST');
  expect(request.headers['content-type']).toMatch(/^application\/json/);
  expect(request.headers['x-service-topic']).toBe('bulk_operations/finish');
  expect(request.headers['x-service-hmac-sha256']).toBe(hmac(request.raw, store.apiKey));
  expect(request.headers['x-service-hmac-sha256']).not.toBe(hmac(request.raw, `${store.apiKey}x`));
  return JSON.parse(request.raw.toString('utf8')) as Record<string, unknown>;
};

describe('a 1,000-line file with 3 bad lines', () => {
  it('imports 997, lists the 3 bad lines with reasons, and announces SUCCESS', async () => {
    const { store, path } = await subscribedStore();
    const prefix = uid('bulk');
    const lines: (Record<string, unknown> | string)[] = [];
    for (let n = 1; n <= 1000; n++) lines.push(customer(`${prefix}-${n}`, { first_name: `First ${n}` }));
    // Line 17: no email. Line 500: broken JSON. Line 999: a consent state the spec does not have.
    const { email: _dropped, ...noEmail } = customer(`${prefix}-17`);
    lines[16] = noEmail;
    lines[499] = `{"id":"${prefix}-500","email":"${prefix}-500@example.com",`;
    lines[998] = customer(`${prefix}-999`, { email_marketing_consent: { state: 'maybe' } });

    const before = Date.now();
    const job = await importAndWait(runtime, store.apiKey, jsonl(lines), 45_000);

    expect(job).toMatchObject({
      endpoint: 'customers',
      status: 'finished',
      result: 'SUCCESS',
      counts: { lines: 1000, imported: 997, created: 997, failed: 3 },
    });
    expect(job.errors.map((e) => e.line)).toEqual([17, 500, 999]);
    const [missingEmail, brokenJson, badConsent] = job.errors;
    expect(missingEmail?.reason).toMatch(/\bemail\b.*required/);
    expect(brokenJson?.reason).toMatch(/JSON/);
    expect(badConsent?.reason).toMatch(/email_marketing_consent\.state/);
    expect(badConsent?.reason).toMatch(/subscribed/);
    expect(job.createdAt).toBeGreaterThanOrEqual(before - 1000);
    expect(job.startedAt).toBeGreaterThanOrEqual(job.createdAt);
    expect(job.finishedAt).toBeGreaterThanOrEqual(job.startedAt ?? Number.POSITIVE_INFINITY);

    // The good lines are stored with their values; the bad ones are not.
    expect(await customers.get(store.storeId, `${prefix}-1`)).toMatchObject({
      email: `${prefix}-1@example.com`,
      firstName: 'First 1',
    });
    expect(await customers.get(store.storeId, `${prefix}-1000`)).toMatchObject({ firstName: 'First 1000' });
    for (const bad of [17, 500, 999]) expect(await customers.get(store.storeId, `${prefix}-${bad}`)).toBeUndefined();
    expect(await contactCount(runtime, store.apiKey)).toBe(997);

    expect(await onlyFinishBody(path, store)).toEqual({ endpoint: 'customers', status: 'SUCCESS' });
  }, 60_000);
});

describe('a file where every line is bad', () => {
  it('finishes FAIL, imports nothing and announces FAIL', async () => {
    const { store, path } = await subscribedStore();
    const id = uid('bad');
    const file = jsonl([
      // The first line is a JSON object (the API checks that much) but not a valid customer.
      { id: `${id}-1`, created_at: 1_700_000_000 },
      'not json at all',
      { id: `${id}-3`, email: 'not-an-email', created_at: 1_700_000_000 },
      '[1, 2, 3]',
    ]);

    const job = await importAndWait(runtime, store.apiKey, file);

    expect(job).toMatchObject({
      status: 'finished',
      result: 'FAIL',
      counts: { lines: 4, imported: 0, created: 0, failed: 4 },
    });
    expect(job.errors.map((e) => e.line)).toEqual([1, 2, 3, 4]);
    for (const error of job.errors) expect(error.reason.length).toBeGreaterThan(5);
    expect(job.errors[2]?.reason).toMatch(/email/);
    expect(await customers.get(store.storeId, `${id}-1`)).toBeUndefined();

    expect(await onlyFinishBody(path, store)).toEqual({ endpoint: 'customers', status: 'FAIL' });
  });
});
