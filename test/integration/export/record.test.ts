/**
 * The contact record of the export (spec "Contact record (contact export)"): every field with its type, the created_at
 * format in UTC, birth dates, genders, countries, tags and consent, for contacts written straight into the table and
 * for one created end to end through the general event interface.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import type { ContactRecord } from '#shared/domain/contacts/model.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import { eventually, newStore, postEvent, type TestStore } from '#test/support/local.ts';
import { BASE_SECONDS, contact, type ExportBody, exporter, seed } from './support.ts';

// The handlers run in this process: a local time zone far from UTC shows whether created_at really is UTC.
process.env.TZ = 'Asia/Tokyo';

const RECORD_FIELDS = [
  'id',
  'origin_id',
  'email',
  'phone',
  'first_name',
  'last_name',
  'country',
  'country_name',
  'city',
  'gender',
  'birth_date',
  'email_subscribed',
  'sms_subscribed',
  'created_at',
  'tags',
  'platform_tags',
].sort();

/** 2024-01-05 03:04:05 UTC (12:04:05 in Tokyo): single-digit month, day, hour, minute and second. */
const JAN_5 = Date.UTC(2024, 0, 5, 3, 4, 5) / 1000;

let runtime: LocalRuntime;
let store: TestStore;
let exported: ExportBody;
const byOrigin = new Map<string, ContactRecord>();
const record = (originId: string): ContactRecord => {
  const found = byOrigin.get(originId);
  if (!found) throw new Error(`no exported contact with origin_id ${originId}`);
  return found;
};

const genders = ['male', 'FEMALE', ' Male ', 'other', 'm', 'f', 'diverse', ''];
const birthDates: [stored: string, exported: string][] = [
  ['1990-1-2', '1990-01-02'],
  ['1985-12-31', '1985-12-31'],
  ['2000-02-29', '2000-02-29'],
  ['1990-01-02T10:00:00Z', '1990-01-02'],
  ['not a date', ''],
  ['', ''],
  ['02/01/1990', ''],
  ['1990-13-01', ''],
  ['1990-00-10', ''],
  ['1990-02-30', ''],
  ['1990-04-31', ''],
  ['1990-01-00', ''],
  ['1990-01-023', ''],
];

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
  store = await newStore('Record Shop');
  const { storeId } = store;

  const full = contact(storeId, JAN_5, {
    originId: 'full',
    email: 'ada@example.com',
    phone: '+4915112345678',
    firstName: 'Ada',
    lastName: 'Lovelace',
    countryCode: 'DE',
    city: 'Berlin',
    gender: 'Female',
    birthDate: '1990-1-2',
    emailConsent: { state: 'subscribed', updatedAt: JAN_5 },
    smsConsent: { state: 'unsubscribed' },
    categoryTags: [
      { category: 'level', value: 'gold' },
      { category: 'source', value: 'pos' },
    ],
    platformTags: ['vip', 'newsletter'],
  });
  const bare: Customer = {
    storeId,
    id: 'ct_bare',
    originId: 'bare',
    platformTags: [],
    categoryTags: [],
    attributes: {},
    createdAt: BASE_SECONDS,
    updatedAt: Date.now(),
    revision: 1,
  };
  const others: Customer[] = [
    contact(storeId, BASE_SECONDS, { originId: 'sms-only', smsConsent: { state: 'subscribed' } }),
    contact(storeId, BASE_SECONDS, {
      originId: 'not-subscribed',
      emailConsent: { state: 'not_subscribed' },
      smsConsent: { state: 'not_subscribed' },
    }),
    // Only an address: the country comes from it.
    contact(storeId, BASE_SECONDS, { originId: 'address-only', defaultAddress: { country_code: 'fr', city: 'Lyon' } }),
    // The contact's country and an address in another country: country_name must name the country exported.
    contact(storeId, BASE_SECONDS, {
      originId: 'two-countries',
      countryCode: 'DE',
      defaultAddress: { country_code: 'FR', country_name: 'France' },
    }),
    contact(storeId, BASE_SECONDS, {
      originId: 'address-name',
      countryCode: 'GB',
      defaultAddress: { country_code: 'GB', country_name: 'United Kingdom' },
    }),
    ...genders.map((gender, i) => contact(storeId, BASE_SECONDS, { originId: `gender-${i}`, gender })),
    ...birthDates.map(([birthDate], i) => contact(storeId, BASE_SECONDS, { originId: `birth-${i}`, birthDate })),
  ];
  await seed([full, bare, ...others]);

  // One contact end to end: the general event interface, the worker, then the export.
  const answer = await postEvent(runtime.urls.main, store.apiKey, {
    endpoint: 'customers/create',
    source_id: 'export-record-e2e',
    data: {
      id: 'shop-42',
      email: 'grace@example.com',
      created_at: JAN_5 * 1000 + 999, // milliseconds are accepted
      first_name: 'Grace',
      last_name: 'Hopper',
      phone: '+12025550123',
      country_code: 'us',
      city: 'Arlington',
      gender: 'FEMALE',
      birth_date: '1906-12-9',
      email_marketing_consent: { state: 'subscribed', updatedAt: JAN_5 },
      sms_marketing_consent: { state: 'not_subscribed' },
      tags: ['vip', 'early-adopter', 'vip'],
      tag_value: 'level:gold, source:pos',
      ignore_flow: 'Y',
    },
  });
  expect(answer.body).toEqual({ code: 200, message: 'ok' });
  await eventually('the worker to store shop-42', () => dynamoCustomerRepository().get(storeId, 'shop-42'), 15_000);

  exported = await exporter(runtime.urls.front, store.apiKey).page({ page_size: 100 });
  for (const r of exported.data) byOrigin.set(r.origin_id, r);
});

afterAll(async () => {
  await runtime?.stop();
});

describe('the contact record', () => {
  it('has exactly the fields of the spec, each with its type', () => {
    expect(exported.total_count).toBe(1 + 1 + 5 + genders.length + birthDates.length + 1);
    expect(exported.data).toHaveLength(exported.total_count);
    for (const r of exported.data) {
      expect(Object.keys(r).sort()).toEqual(RECORD_FIELDS);
      for (const field of RECORD_FIELDS) {
        const value = r[field as keyof ContactRecord];
        if (field === 'email_subscribed' || field === 'sms_subscribed') expect(typeof value).toBe('boolean');
        else if (field === 'tags') {
          expect(Array.isArray(value)).toBe(true);
          for (const tag of value as unknown[])
            expect(tag).toEqual({ category: expect.any(String), value: expect.any(String) });
        } else if (field === 'platform_tags') {
          expect(Array.isArray(value)).toBe(true);
          for (const tag of value as unknown[]) expect(typeof tag).toBe('string');
        } else expect(typeof value).toBe('string');
      }
      expect(r.created_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      expect(r.birth_date).toMatch(/^(\d{4}-\d{2}-\d{2})?$/);
      expect(['male', 'female', '']).toContain(r.gender);
    }
  });

  it('maps a fully populated contact', () => {
    expect(record('full')).toEqual({
      id: expect.stringMatching(/^ct_/),
      origin_id: 'full',
      email: 'ada@example.com',
      phone: '+4915112345678',
      first_name: 'Ada',
      last_name: 'Lovelace',
      country: 'DE',
      country_name: 'Germany',
      city: 'Berlin',
      gender: 'female',
      birth_date: '1990-01-02',
      email_subscribed: true,
      sms_subscribed: false,
      created_at: '2024-01-05 03:04:05',
      tags: [
        { category: 'level', value: 'gold' },
        { category: 'source', value: 'pos' },
      ],
      platform_tags: ['vip', 'newsletter'],
    });
  });

  it('exports empty strings, false and empty lists for a contact with no data', () => {
    expect(record('bare')).toEqual({
      id: 'ct_bare',
      origin_id: 'bare',
      email: '',
      phone: '',
      first_name: '',
      last_name: '',
      country: '',
      country_name: '',
      city: '',
      gender: '',
      birth_date: '',
      email_subscribed: false,
      sms_subscribed: false,
      created_at: '2023-11-14 22:13:20',
      tags: [],
      platform_tags: [],
    });
  });

  it('reports each consent as subscribed only in the state subscribed', () => {
    expect(record('sms-only')).toMatchObject({ email_subscribed: false, sms_subscribed: true });
    expect(record('not-subscribed')).toMatchObject({ email_subscribed: false, sms_subscribed: false });
  });

  it('exports the country as upper-case ISO alpha-2 with the name of that country', () => {
    expect(record('address-only')).toMatchObject({ country: 'FR', country_name: 'France', city: 'Lyon' });
    expect(record('two-countries')).toMatchObject({ country: 'DE', country_name: 'Germany' });
    expect(record('address-name')).toMatchObject({ country: 'GB', country_name: 'United Kingdom' });
  });

  it('exports gender male or female (any case), anything else as an empty string', () => {
    expect(genders.map((_, i) => record(`gender-${i}`).gender)).toEqual(['male', 'female', 'male', '', '', '', '', '']);
  });

  it('exports birth_date as zero-padded yyyy-MM-dd, or an empty string when it is not a date', () => {
    expect(birthDates.map(([stored], i) => [stored, record(`birth-${i}`).birth_date])).toEqual(birthDates);
  });

  it('exports a contact created through the general event interface end to end', async () => {
    const stored = await dynamoCustomerRepository().get(store.storeId, 'shop-42');
    expect(record('shop-42')).toEqual({
      id: stored?.id,
      origin_id: 'shop-42',
      email: 'grace@example.com',
      phone: '+12025550123',
      first_name: 'Grace',
      last_name: 'Hopper',
      country: 'US',
      country_name: 'United States',
      city: 'Arlington',
      gender: 'female',
      birth_date: '1906-12-09',
      email_subscribed: true,
      sms_subscribed: false,
      created_at: '2024-01-05 03:04:05',
      tags: [
        { category: 'level', value: 'gold' },
        { category: 'source', value: 'pos' },
      ],
      platform_tags: ['vip', 'early-adopter'],
    });
    expect(stored?.id).toMatch(/^ct_/);
  });
});
