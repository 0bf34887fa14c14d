/**
 * The export's query rules and errors over HTTP (spec "Contact export", "Errors", "Authentication", "Limits"):
 * inclusive creation-time bounds, alone or together; 400 for bad parameters, 401 for a missing or invalid key, 429
 * for a second call within the same second.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { newStore } from '#test/support/local.ts';
import { BASE_SECONDS, contact, exporter, exportOrder, type Query, seed, sleep } from './support.ts';

let runtime: LocalRuntime;

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
});

afterAll(async () => {
  await runtime?.stop();
});

describe('created_at bounds', () => {
  const start = BASE_SECONDS;
  const end = BASE_SECONDS + 100;

  it('are inclusive at both ends and work alone or together', async () => {
    const store = await newStore('Bounds Shop');
    // Two contacts on each bound (ties), one a second inside and one a second outside each bound, and far ones.
    const at = [start - 500, start - 1, start, start, start + 1, start + 50, end - 1, end, end, end + 1, end + 500];
    const contacts = at.map((createdAt) => contact(store.storeId, createdAt));
    await seed(contacts);
    const api = exporter(runtime.urls.front, store.apiKey);
    const idsWhere = (keep: (createdAt: number) => boolean) =>
      exportOrder(contacts.filter((c) => keep(c.createdAt))).map((c) => c.id);

    const cases: { query: Query; expected: string[] }[] = [
      { query: { created_at_start: start, created_at_end: end }, expected: idsWhere((t) => t >= start && t <= end) },
      { query: { created_at_start: start }, expected: idsWhere((t) => t >= start) },
      { query: { created_at_end: end }, expected: idsWhere((t) => t <= end) },
      { query: { created_at_start: end, created_at_end: end }, expected: idsWhere((t) => t === end) },
      {
        query: { created_at_start: start + 1, created_at_end: end - 1 },
        expected: idsWhere((t) => t > start && t < end),
      },
      { query: { created_at_start: end + 501 }, expected: [] },
    ];
    for (const { query, expected } of cases) {
      const page = await api.page({ ...query, page_size: 50 });
      expect({ query, ids: page.data.map((r) => r.id) }).toEqual({ query, ids: expected });
      expect({ query, total: page.total_count, pages: page.total_pages }).toEqual({
        query,
        total: expected.length,
        pages: Math.ceil(expected.length / 50),
      });
    }
    // The sanity of the fixture itself: the bounds cut 4 contacts off.
    expect(cases[0]?.expected).toHaveLength(7);
  });
});

describe('errors', () => {
  const badQueries: Query[] = [
    { page_size: 5001 },
    { created_at_start: BASE_SECONDS + 1, created_at_end: BASE_SECONDS },
    { page: 'abc' },
    { page: '1.5' },
    { page: '2e1' },
    { page: 0 },
    { page: -1 },
    { page_size: 'ten' },
    { page_size: '100.0' },
    { page_size: 0 },
    { page_size: -5 },
    { created_at_start: 'yesterday' },
    { created_at_end: -1 },
  ];

  it.each(badQueries)('answers 400 {code, message} to %o', async (query) => {
    // A store per case: each call is its store's first, so none meets the rate limit.
    const store = await newStore('Bad Query Shop');
    const answer = await exporter(runtime.urls.front, store.apiKey).get(query);
    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.body).toEqual({ code: 400, message: expect.any(String) });
    expect(String(answer.body.message)).not.toBe('');
  });

  it('accepts the largest page size, 5000', async () => {
    const store = await newStore('Big Page Shop');
    const page = await exporter(runtime.urls.front, store.apiKey).page({ page_size: 5000 });
    expect(page).toEqual({ page: 1, page_size: 5000, total_count: 0, total_pages: 0, data: [] });
  });

  it.each([
    ['no key', null],
    ['an empty key', ''],
    ['an unknown key', 'shop_0123456789abcdefghijklmnopqrstuv'],
    ['a key without the shop_ prefix', 'not-a-key'],
  ])('answers 401 {code, message} to %s', async (_, apiKey) => {
    const store = await newStore('Auth Shop');
    const api = exporter(runtime.urls.front, store.apiKey);
    const answer = await api.get({}, { apiKey });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ code: 401, message: expect.any(String) });
    // The same call with the store's key is answered.
    expect((await api.get({})).status).toBe(200);
  });

  it('answers 429 with retry-after to a second call within the same second, and serves again after it', async () => {
    const store = await newStore('Hasty Shop');
    const url = exporter(runtime.urls.front, store.apiKey).url({ page_size: 10 });
    const call = () => fetch(url, { headers: { 'x-service-access-token': store.apiKey } });

    // Both calls early in one second (the limit counts fixed one-second windows); again if the machine was too slow.
    let first: Response;
    let hasty: Response;
    for (let attempt = 1; ; attempt++) {
      await sleep(1000 - (Date.now() % 1000) + 5);
      const second = Math.floor(Date.now() / 1000);
      first = await call();
      hasty = await call();
      if (Math.floor(Date.now() / 1000) === second || attempt === 3) break;
    }
    expect(first.status).toBe(200);
    expect(hasty.status).toBe(429);
    expect(await hasty.json()).toEqual({ code: 429, message: expect.any(String) });
    const retryAfter = hasty.headers.get('retry-after');
    expect(retryAfter).toMatch(/^[1-9]\d*$/);

    await sleep(Number(retryAfter) * 1000 + 50);
    const later = await call();
    expect(later.status).toBe(200);
  });
});
