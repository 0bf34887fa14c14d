/**
 * Contact export paging over HTTP against the local runtime (spec "Contact export", "Limits"): totals, page sizes, the
 * (created_at, id) order over a full export, a page past the end, and paging while contacts are being added.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { newStore } from '#test/support/local.ts';
import { BASE_SECONDS, contact, type ExportBody, exporter, exportOrder, seed, seedBulk } from './support.ts';

let runtime: LocalRuntime;

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
});

afterAll(async () => {
  await runtime?.stop();
});

describe('a full export of 12,345 contacts', () => {
  it('pages 5000/5000/2345 with the totals, every contact once in (created_at, id) order, then an empty page', async () => {
    const store = await newStore('Paging Shop');
    // Many contacts share a second, so the id decides their order; insertion order is not the export order.
    const contacts = Array.from({ length: 12_345 }, (_, i) =>
      contact(store.storeId, BASE_SECONDS + ((i * 7919) % 3001)),
    );
    await seedBulk(contacts);
    const expected = exportOrder(contacts).map((c) => c.id);
    const api = exporter(runtime.urls.front, store.apiKey);

    const pages: ExportBody[] = [];
    for (const page of [1, 2, 3]) pages.push(await api.page({ page, page_size: 5000 }));

    expect(pages.map((p) => p.data.length)).toEqual([5000, 5000, 2345]);
    pages.forEach((p, i) => {
      expect(p).toMatchObject({ page: i + 1, page_size: 5000, total_count: 12_345, total_pages: 3 });
    });
    const ids = pages.flatMap((p) => p.data.map((r) => r.id));
    expect(new Set(ids).size).toBe(12_345);
    expect(ids).toEqual(expected);
    // created_at (`yyyy-MM-dd HH:mm:ss`) sorts as text in time order: never decreasing across the export.
    const times = pages.flatMap((p) => p.data.map((r) => r.created_at));
    expect(times.every((t, i) => i === 0 || (times[i - 1] ?? '') <= t)).toBe(true);

    const past = await api.page({ page: 4, page_size: 5000 });
    expect(past).toEqual({ page: 4, page_size: 5000, total_count: 12_345, total_pages: 3, data: [] });

    // Without parameters: page 1 of 1,000 (the spec's defaults).
    const defaults = await api.page();
    expect(defaults).toMatchObject({ page: 1, page_size: 1000, total_count: 12_345, total_pages: 13 });
    expect(defaults.data.map((r) => r.id)).toEqual(expected.slice(0, 1000));
  });
});

describe('paging while contacts are being added', () => {
  it('neither skips nor repeats a contact that existed when paging began, when earlier contacts arrive', async () => {
    const store = await newStore('Growing Shop');
    const originals = Array.from({ length: 300 }, (_, i) => contact(store.storeId, BASE_SECONDS + i));
    await seed(originals);
    const api = exporter(runtime.urls.front, store.apiKey);

    const first = await api.page({ page: 1, page_size: 100 });
    expect(first).toMatchObject({ total_count: 300, total_pages: 3 });

    // 50 contacts created before everything else: an offset-based export would now repeat 50 contacts of page 1.
    const newcomers = Array.from({ length: 50 }, (_, i) => contact(store.storeId, BASE_SECONDS - 1000 - i));
    await seed(newcomers);

    const second = await api.page({ page: 2, page_size: 100 });
    const third = await api.page({ page: 3, page_size: 100 });

    const seen = [first, second, third].flatMap((p) => p.data.map((r) => r.id));
    const originalIds = exportOrder(originals).map((c) => c.id);
    const newIds = new Set(newcomers.map((c) => c.id));
    const counts = new Map<string, number>();
    for (const id of seen) counts.set(id, (counts.get(id) ?? 0) + 1);
    expect(originalIds.filter((id) => counts.get(id) !== 1)).toEqual([]);
    // Pages 2 and 3 start where the page before ended, so they hold the originals 101–300 in order.
    expect([...second.data, ...third.data].filter((r) => !newIds.has(r.id)).map((r) => r.id)).toEqual(
      originalIds.slice(100),
    );
  });

  it('neither skips nor repeats a contact that existed when paging began, when later contacts arrive mid-export', async () => {
    const store = await newStore('Busy Shop');
    const originals = Array.from({ length: 300 }, (_, i) => contact(store.storeId, BASE_SECONDS + 10 * i));
    await seed(originals);
    const api = exporter(runtime.urls.front, store.apiKey);

    const pages = [await api.page({ page: 1, page_size: 100 })];
    expect(pages[0]).toMatchObject({ total_count: 300, total_pages: 3 });
    // 50 contacts created within the range not read yet: the totals (counted once a minute) do not know them.
    await seed(Array.from({ length: 50 }, (_, i) => contact(store.storeId, BASE_SECONDS + 1505 + (i % 5))));
    for (let page = 2; page <= 5; page++) pages.push(await api.page({ page, page_size: 100 }));

    const seen = pages.flatMap((p) => p.data.map((r) => r.id));
    const counts = new Map<string, number>();
    for (const id of seen) counts.set(id, (counts.get(id) ?? 0) + 1);
    expect(exportOrder(originals).filter((c) => counts.get(c.id) !== 1)).toEqual([]);
    expect(seen).toHaveLength(350);
    // Past the real end, an empty page with the totals.
    expect(pages[4]?.data).toEqual([]);
  });
});
