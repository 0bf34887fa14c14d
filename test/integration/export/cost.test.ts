/**
 * What a page of the contact export costs in DynamoDB reads (docs/contacts.md "Paging"): an export paging 1, 2, 3, …
 * pays about one read of its page per request whatever the page number, and a page whose start is not known yet is
 * still the right page (reached by reading keys only), after which it is cheap as well.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { newStore, type TestStore } from '#test/support/local.ts';
import {
  BASE_SECONDS,
  contact,
  type Exporter,
  exporter,
  exportOrder,
  type Query,
  queriesDuring,
  seed,
} from './support.ts';

const CONTACTS = 20_000;
const PAGE_SIZE = 1000;
const LAST = CONTACTS / PAGE_SIZE;

let runtime: LocalRuntime;
let store: TestStore;
let api: Exporter;
let expected: string[];
/** Query calls per page of the sequential run, and that run's ids per page. */
const sequential = new Map<number, { queries: number; ids: string[] }>();

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
  store = await newStore('Cost Shop');
  const contacts = Array.from({ length: CONTACTS }, (_, i) => contact(store.storeId, BASE_SECONDS + (i % 5000)));
  await seed(contacts);
  expected = exportOrder(contacts).map((c) => c.id);
  api = exporter(runtime.urls.front, store.apiKey);
});

afterAll(async () => {
  await runtime?.stop();
});

const measuredPage = async (query: Query) => {
  const { result, queries } = await queriesDuring(runtime.dynamodbCalls, () => api.page(query));
  return { page: result, queries, ids: result.data.map((r) => r.id) };
};

describe('the cost of a page', () => {
  it(`does not grow with the page number when pages 1 to ${LAST} are taken in turn`, async () => {
    for (let page = 1; page <= LAST; page++) {
      const { ids, queries } = await measuredPage({ page, page_size: PAGE_SIZE });
      sequential.set(page, { queries, ids });
    }
    const all = [...sequential.values()].flatMap((p) => p.ids);
    expect(all).toEqual(expected);

    const costs = [...sequential.entries()].map(([page, { queries }]) => `${page}:${queries}`).join(' ');
    console.info(`Query calls per page, sequential (page:queries): ${costs}`);
    const first = sequential.get(1)?.queries ?? 0;
    const last = sequential.get(LAST)?.queries ?? Number.POSITIVE_INFINITY;
    expect(last).toBeLessThanOrEqual(first + 1);
    // Every page after the first: the remembered start and the page itself.
    for (let page = 2; page <= LAST; page++) expect(sequential.get(page)?.queries).toBeLessThanOrEqual(2);
  }, 60_000);

  it(`answers page ${LAST} of a query shape never paged before with the right contacts, and cheaply the second time`, async () => {
    const wanted = sequential.get(LAST)?.ids;
    expect(wanted).toHaveLength(PAGE_SIZE);

    // Same contacts, another shape (an explicit lower bound): no remembered page start to use.
    const shape = { created_at_start: BASE_SECONDS, page_size: PAGE_SIZE };
    const jump = await measuredPage({ ...shape, page: LAST });
    expect(jump.page).toMatchObject({ page: LAST, total_count: CONTACTS, total_pages: LAST });
    expect(jump.ids).toEqual(wanted);

    const again = await measuredPage({ ...shape, page: LAST });
    expect(again.ids).toEqual(wanted);
    expect(again.queries).toBeLessThanOrEqual(2);
    console.info(`Query calls for page ${LAST} of a new shape: first ${jump.queries}, then ${again.queries}`);

    // Another page size: page 10 of 2,000 holds pages 19 and 20 of 1,000.
    const wide = await measuredPage({ page: LAST / 2, page_size: 2 * PAGE_SIZE });
    expect(wide.ids).toEqual([...(sequential.get(LAST - 1)?.ids ?? []), ...(wanted ?? [])]);
    expect(wide.page).toMatchObject({ total_count: CONTACTS, total_pages: LAST / 2 });
  });
});
