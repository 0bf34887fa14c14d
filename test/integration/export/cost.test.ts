/**
 * What a page of the contact export costs in DynamoDB reads (docs/contacts.md "Paging"): with the store's contact
 * counters, any page — taken in turn, or a cold jump to a page of a query shape never paged before, with or without
 * bounds — reads at most 1.5 × its own items, counters and the total included. A store whose counters are not exact
 * (created before they existed, or after a write that could not adjust them) is still served right, the older way,
 * until `recountContacts` counts it again.
 */

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { installReadMeter, itemsRead, type ReadMeter, tallyDelta } from '#local/read-meter.ts';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamo } from '#shared/adapters/aws-clients.ts';
import { dynamoContactCounts, recountContacts } from '#shared/adapters/dynamodb/contact-counts.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { keys } from '#shared/adapters/dynamodb/keys.ts';
import { tableName } from '#shared/adapters/dynamodb/table.ts';
import { DeleteCommand } from '#shared/adapters/dynamodb-client.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import { newStore } from '#test/support/local.ts';
import {
  BASE_SECONDS,
  contact,
  type Exporter,
  exporter,
  exportOrder,
  type Query,
  queriesDuring,
  seedBulk,
} from './support.ts';

const CONTACTS = 20_000;
const PAGE_SIZE = 1000;
const LAST = CONTACTS / PAGE_SIZE;
/** The bound: a page reads at most 1.5 × its own items, whatever its number. */
const MAX_ITEMS = 1.5 * PAGE_SIZE;

let runtime: LocalRuntime;
let meter: ReadMeter;

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
  meter = installReadMeter();
});

afterAll(async () => {
  meter?.remove();
  await runtime?.stop();
});

/** Four contacts a second over 5,000 seconds (dense: the id orders each second), in a new store. */
const denseStore = async (name: string) => {
  const store = await newStore(name);
  const contacts = Array.from({ length: CONTACTS }, (_, i) => contact(store.storeId, BASE_SECONDS + (i % 5000)));
  await seedBulk(contacts);
  return { store, contacts, api: exporter(runtime.urls.front, store.apiKey) };
};

const measured = async (api: Exporter, query: Query) => {
  const before = meter.read();
  const { result, queries } = await queriesDuring(runtime.dynamodbCalls, () => api.page(query));
  return {
    page: result,
    queries,
    items: itemsRead(tallyDelta(before, meter.read())),
    ids: result.data.map((r) => r.id),
  };
};

const pageOf = (ordered: readonly Customer[], page: number, size = PAGE_SIZE) =>
  ordered.slice((page - 1) * size, page * size).map((c) => c.id);

describe('a store with exact contact counters', () => {
  let api: Exporter;
  let ordered: Customer[];

  beforeAll(async () => {
    const seeded = await denseStore('Counted Shop');
    api = seeded.api;
    ordered = exportOrder(seeded.contacts);
  }, 120_000);

  it(`reads at most 1.5 × a page for each of pages 1 to ${LAST}, taken in turn, with the total`, async () => {
    const costs: string[] = [];
    for (let page = 1; page <= LAST; page++) {
      const got = await measured(api, { page, page_size: PAGE_SIZE });
      expect(got.page).toMatchObject({ page, total_count: CONTACTS, total_pages: LAST });
      expect(got.ids).toEqual(pageOf(ordered, page));
      expect(got.items).toBeLessThanOrEqual(MAX_ITEMS);
      costs.push(`${page}:${got.items}`);
    }
    console.info(`Items read per page, in turn (page:items): ${costs.join(' ')}`);
  }, 60_000);

  it(`reads at most 1.5 × a page for a cold jump to page ${LAST} of a shape never paged before`, async () => {
    const shape = { created_at_start: BASE_SECONDS, page_size: PAGE_SIZE };
    const jump = await measured(api, { ...shape, page: LAST });
    expect(jump.page).toMatchObject({ page: LAST, total_count: CONTACTS, total_pages: LAST });
    expect(jump.ids).toEqual(pageOf(ordered, LAST));
    expect(jump.items).toBeLessThanOrEqual(MAX_ITEMS);
    console.info(`Cold jump to page ${LAST}: ${jump.items} items read in ${jump.queries} queries`);

    // Another page size: page 10 of 2,000 holds pages 19 and 20 of 1,000.
    const wide = await measured(api, { page: LAST / 2, page_size: 2 * PAGE_SIZE });
    expect(wide.ids).toEqual(pageOf(ordered, LAST / 2, 2 * PAGE_SIZE));
    expect(wide.page).toMatchObject({ total_count: CONTACTS, total_pages: LAST / 2 });
    expect(wide.items).toBeLessThanOrEqual(1.5 * 2 * PAGE_SIZE);
  });

  it('answers bounded shapes whose edges cut through seconds, minutes and hours, with their totals', async () => {
    for (const [start, end, page] of [
      [BASE_SECONDS + 1234, BASE_SECONDS + 3777, 3],
      [BASE_SECONDS + 59, BASE_SECONDS + 4001, 11],
      [BASE_SECONDS + 3599, BASE_SECONDS + 3601, 1],
    ] as const) {
      const within = ordered.filter((c) => c.createdAt >= start && c.createdAt <= end);
      const got = await measured(api, { created_at_start: start, created_at_end: end, page, page_size: PAGE_SIZE });
      expect(got.page).toMatchObject({ total_count: within.length, total_pages: Math.ceil(within.length / PAGE_SIZE) });
      expect(got.ids).toEqual(pageOf(within, page));
      expect(got.items).toBeLessThanOrEqual(MAX_ITEMS);
    }
  });

  it('answers a page past the end with no data and no contact read', async () => {
    const past = await measured(api, { page: LAST + 5, page_size: PAGE_SIZE });
    expect(past.page).toEqual({
      page: LAST + 5,
      page_size: PAGE_SIZE,
      total_count: CONTACTS,
      total_pages: LAST,
      data: [],
    });
    expect(past.items).toBeLessThan(100);
  });
});

describe('contact writes', () => {
  it('move a contact between buckets when an update changes its creation time', async () => {
    const store = await newStore('Moving Shop');
    const repository = dynamoCustomerRepository();
    const moving = contact(store.storeId, BASE_SECONDS);
    const staying = contact(store.storeId, BASE_SECONDS + 10);
    await repository.save(moving, 0);
    await repository.save(staying, 0);
    // A `customers/update` with another `created_at`: two days later.
    await repository.save({ ...moving, createdAt: BASE_SECONDS + 2 * 86_400, revision: 2 }, 1);

    const api = exporter(runtime.urls.front, store.apiKey);
    const early = await api.page({ created_at_end: BASE_SECONDS + 86_400, page_size: 1 });
    expect(early).toMatchObject({ total_count: 1, total_pages: 1 });
    expect(early.data.map((r) => r.id)).toEqual([staying.id]);
    const late = await api.page({ created_at_start: BASE_SECONDS + 86_400, page: 1, page_size: 1 });
    expect(late).toMatchObject({ total_count: 1 });
    expect(late.data.map((r) => r.id)).toEqual([moving.id]);
    const second = await api.page({ page: 2, page_size: 1 });
    expect(second).toMatchObject({ total_count: 2, total_pages: 2 });
    expect(second.data.map((r) => r.id)).toEqual([moving.id]);
  });
});

describe('a store whose counters are not exact', () => {
  afterEach(() => {
    dynamo().middlewareStack.remove('failContactCounters');
  });

  it('is exported right the older way, and cheaply again once recounted', async () => {
    const { store, contacts, api } = await denseStore('Legacy Shop');
    const ordered = exportOrder(contacts);
    // A store created before the counters existed has no state item.
    await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: keys.contactCountState(store.storeId) }));
    expect(await dynamoContactCounts().exact(store.storeId)).toBe(false);

    const shape = { created_at_start: BASE_SECONDS, page_size: PAGE_SIZE };
    const walked = await measured(api, { ...shape, page: LAST });
    expect(walked.page).toMatchObject({ total_count: CONTACTS, total_pages: LAST });
    expect(walked.ids).toEqual(pageOf(ordered, LAST));
    // Counted (20,000) and walked (19,000 keys) before its page: what the counters save.
    expect(walked.items).toBeGreaterThan(CONTACTS);

    expect(await recountContacts(store.storeId)).toBe(CONTACTS);
    expect(await dynamoContactCounts().exact(store.storeId)).toBe(true);
    const counted = await measured(api, {
      created_at_end: BASE_SECONDS + 10_000,
      page: LAST - 1,
      page_size: PAGE_SIZE,
    });
    expect(counted.ids).toEqual(pageOf(ordered, LAST - 1));
    expect(counted.items).toBeLessThanOrEqual(MAX_ITEMS);
  }, 120_000);

  it('is marked stale when a contact write cannot adjust them, and still exported right', async () => {
    const store = await newStore('Stale Shop');
    const repository = dynamoCustomerRepository();
    const first = contact(store.storeId, BASE_SECONDS);
    await repository.save(first, 0);
    expect(await dynamoContactCounts().exact(store.storeId)).toBe(true);

    // Replays a counter write that fails after the contact's own put succeeded (throttled, or the process stopped).
    dynamo().middlewareStack.add(
      ((next: (args: { input: { Key?: { pk?: string } } }) => Promise<unknown>) =>
        async (args: { input: { Key?: { pk?: string } } }) => {
          if (args.input.Key?.pk?.includes('#CONTACT-COUNTS#')) throw new Error('ProvisionedThroughputExceeded');
          return next(args);
        }) as never,
      { step: 'initialize', name: 'failContactCounters' },
    );
    const second = contact(store.storeId, BASE_SECONDS + 1);
    await repository.save(second, 0);
    dynamo().middlewareStack.remove('failContactCounters');

    expect(await dynamoContactCounts().exact(store.storeId)).toBe(false);
    const api = exporter(runtime.urls.front, store.apiKey);
    const page = await api.page({ page: 2, page_size: 1 });
    expect(page).toMatchObject({ total_count: 2, total_pages: 2 });
    expect(page.data.map((r) => r.id)).toEqual([second.id]);
  });
});
