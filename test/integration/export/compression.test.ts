/**
 * Compression of the export (docs/contacts.md "Paging"): a page of 5,000 richly populated contacts is gzip-compressed
 * for a client that accepts gzip and sent as is to one that does not; the bytes on the wire are read with `node:http`.
 */
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { EXPORT_PAGE_SIZE } from '#shared/domain/contacts/export-contacts.ts';
import { CONTACT_RECORD_MAX_BYTES, contactRecordBytes } from '#shared/domain/contacts/model.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import { fitsOneResponse } from '#shared/http/responses.ts';
import { newStore } from '#test/support/local.ts';
import {
  BASE_SECONDS,
  contact,
  type ExportBody,
  type Exporter,
  exporter,
  exportOrder,
  rawGet,
  seedBulk,
} from './support.ts';

const CONTACTS = 5000;
/** Lambda's limit on a synchronous response. */
const LAMBDA_RESPONSE_LIMIT = 6 * 1024 * 1024;

let runtime: LocalRuntime;
let api: Exporter;
let expectedIds: string[];

const rich = (storeId: string, i: number): Customer =>
  contact(storeId, BASE_SECONDS + i, {
    phone: `+49151${String(10_000_000 + i)}`,
    firstName: `Alexandra-Maria ${i}`,
    lastName: `Müller-Lüdenscheidt ${i}`,
    countryCode: ['DE', 'FR', 'US', 'JP', 'BR'][i % 5] ?? 'DE',
    city: `Garmisch-Partenkirchen ${i % 97}`,
    gender: i % 2 ? 'female' : 'male',
    birthDate: `19${50 + (i % 50)}-${(i % 12) + 1}-${(i % 28) + 1}`,
    emailConsent: { state: 'subscribed', updatedAt: BASE_SECONDS },
    smsConsent: { state: i % 3 ? 'subscribed' : 'unsubscribed' },
    defaultAddress: { address1: `${i} Long Street Name`, zip: String(10_000 + i), city: 'Garmisch-Partenkirchen' },
    categoryTags: Array.from({ length: 6 }, (_, t) => ({ category: `segment-${t}`, value: `value-${(i + t) % 40}` })),
    platformTags: Array.from({ length: 6 }, (_, t) => `platform-tag-${(i * 7 + t) % 50}`),
  });

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
  const store = await newStore('Rich Shop');
  const contacts = Array.from({ length: CONTACTS }, (_, i) => rich(store.storeId, i));
  await seedBulk(contacts);
  expectedIds = exportOrder(contacts).map((c) => c.id);
  api = exporter(runtime.urls.front, store.apiKey);
});

afterAll(async () => {
  await runtime?.stop();
});

describe('compression', () => {
  it('gzips a 5,000-contact page for a client that accepts gzip, and sends it as is otherwise', async () => {
    const query = { page_size: CONTACTS };
    const zipped = await api.raw(query, { 'accept-encoding': 'gzip' });
    const plain = await api.raw(query);

    expect(zipped.status).toBe(200);
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toMatch(/accept-encoding/i);
    expect(zipped.headers['content-type']).toMatch(/^application\/json/);
    const unzipped = gunzipSync(zipped.bytes);

    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['content-type']).toMatch(/^application\/json/);
    expect(unzipped.equals(plain.bytes)).toBe(true);

    const body = JSON.parse(plain.bytes.toString('utf8')) as ExportBody;
    expect(body).toMatchObject({ page: 1, page_size: CONTACTS, total_count: CONTACTS, total_pages: 1 });
    expect(body.data.map((r) => r.id)).toEqual(expectedIds);
    expect(body.data[1]).toMatchObject({
      last_name: 'Müller-Lüdenscheidt 1',
      country: 'FR',
      country_name: 'France',
      birth_date: '1951-02-02',
      sms_subscribed: true,
    });
    expect(body.data[1]?.tags).toHaveLength(6);

    // What the function returns to API Gateway is the result serialised as JSON, body as a (base64 or JSON) string.
    const zippedResult = Buffer.byteLength(JSON.stringify({ body: zipped.bytes.toString('base64') }));
    const plainResult = Buffer.byteLength(JSON.stringify({ body: plain.bytes.toString('utf8') }));
    console.info(
      `5,000 rich contacts: ${plain.bytes.length} bytes uncompressed, ${zipped.bytes.length} bytes gzip ` +
        `(${(zipped.bytes.length / plain.bytes.length).toFixed(3)}); Lambda result about ${zippedResult} bytes ` +
        `gzipped (base64), ${plainResult} bytes uncompressed (escaped JSON)`,
    );
    expect(zipped.bytes.length).toBeLessThan(plain.bytes.length / 4);
    expect(zippedResult).toBeLessThan(LAMBDA_RESPONSE_LIMIT);
    expect(plainResult).toBeLessThan(LAMBDA_RESPONSE_LIMIT);
  });

  it('is decoded by fetch, which keeps the content-encoding header', async () => {
    const answer = await api.get({ page_size: CONTACTS }, { headers: { 'accept-encoding': 'gzip' } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-encoding')).toBe('gzip');
    const body = answer.body as unknown as ExportBody;
    expect(body.data.map((r) => r.id)).toEqual(expectedIds);
  });

  it('does not compress a small answer', async () => {
    const small = await api.raw({ page_size: 2 }, { 'accept-encoding': 'gzip' });
    expect(small.status).toBe(200);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect((JSON.parse(small.bytes.toString('utf8')) as ExportBody).data).toHaveLength(2);
  });
});

describe('a page larger than one response', () => {
  /** Contacts near their exported-record budget: 2,000 of them make a page past Lambda's 6 MB response limit. */
  const heavy = (storeId: string, i: number): Customer =>
    contact(storeId, BASE_SECONDS + i, {
      platformTags: Array.from({ length: 20 }, (_, t) => `tag-${i}-${t}-`.padEnd(180, 'x')),
    });

  it('is answered 303 with a link serving the same JSON, which fetch follows', async () => {
    const store = await newStore('Heavy Shop');
    const contacts = Array.from({ length: 2000 }, (_, i) => heavy(store.storeId, i));
    expect(contactRecordBytes(contacts[0] as Customer)).toBeLessThanOrEqual(CONTACT_RECORD_MAX_BYTES);
    await seedBulk(contacts);
    const heavyApi = exporter(runtime.urls.front, store.apiKey);
    const query = { page_size: 2000 };

    const redirected = await heavyApi.raw(query, { 'accept-encoding': 'gzip' });
    expect(redirected.status).toBe(303);
    const location = String(redirected.headers.location);
    expect(location).toMatch(/export-pages/);
    expect(JSON.parse(redirected.bytes.toString('utf8'))).toMatchObject({ code: 303 });

    // The link needs no key: it is signed, and valid for minutes.
    const fetched = await rawGet(location, {});
    expect(fetched.status).toBe(200);
    expect(fetched.bytes.length).toBeGreaterThan(LAMBDA_RESPONSE_LIMIT);
    const body = JSON.parse(fetched.bytes.toString('utf8')) as ExportBody;
    expect(body).toMatchObject({ page: 1, page_size: 2000, total_count: 2000, total_pages: 1 });
    expect(body.data.map((r) => r.id)).toEqual(exportOrder(contacts).map((c) => c.id));

    const followed = await heavyApi.get(query);
    expect(followed.status).toBe(200);
    expect((followed.body as unknown as ExportBody).data).toHaveLength(2000);

    // A smaller page of the same store is answered in the response.
    expect((await heavyApi.page({ page_size: 500 })).data).toHaveLength(500);
  });
});

describe('the largest possible page', () => {
  it('is within what the export can read and build: 5,000 records at their budget', () => {
    // Every record at most CONTACT_RECORD_MAX_BYTES: a 5,000-contact page is at most this, plus its envelope.
    const largest = EXPORT_PAGE_SIZE.max * (CONTACT_RECORD_MAX_BYTES + 1);
    expect(largest).toBeLessThanOrEqual(100 * 1024 * 1024);
    // Such a page never goes into the response; one that fits goes there (gzip or not).
    expect(fitsOneResponse('x'.repeat(largest))).toBe(false);
    expect(fitsOneResponse(JSON.stringify({ data: 'x'.repeat(5 * 1024 * 1024) }))).toBe(true);
    // The body is escaped once more inside the Lambda result: quotes count twice.
    expect(fitsOneResponse(JSON.stringify({ data: '"'.repeat(3 * 1024 * 1024) }))).toBe(false);
  });
});
