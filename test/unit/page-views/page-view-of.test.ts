import { describe, expect, it } from 'vitest';
import type { HistoryEvent } from '#shared/domain/ingest/model.ts';
import { pageViewOf } from '#shared/domain/page-views/model.ts';

const event = (overrides: Partial<HistoryEvent>): HistoryEvent => ({
  storeId: 'st_1',
  sourceId: 'src-1',
  endpoint: 'page/viewed',
  interface: 'general',
  acceptedAt: 1_700_000_500_250,
  data: {},
  ...overrides,
});

describe('pageViewOf: a page view read back from its applied event (the event history)', () => {
  it('a general view is the contact of its email, at the time it was sent with', () => {
    const data = {
      email: 'a@example.com',
      product_id: 'p-7',
      url: 'https://shop.example/p-7',
      timestamp: 1_700_000_100,
    };
    expect(pageViewOf(event({ data }))).toEqual({
      storeId: 'st_1',
      contactKey: 'email:a@example.com',
      sourceId: 'src-1',
      url: 'https://shop.example/p-7',
      productId: 'p-7',
      viewedAt: 1_700_000_100,
      interface: 'general',
    });
  });

  it('a general view sent without a time is at its acceptance (seconds)', () => {
    expect(pageViewOf(event({ data: { email: 'a@example.com' } }))).toEqual({
      storeId: 'st_1',
      contactKey: 'email:a@example.com',
      sourceId: 'src-1',
      viewedAt: 1_700_000_500,
      interface: 'general',
    });
  });

  it('a headless view is its customer, or guest; its product only with includeProduct 1', () => {
    const page = { url: 'https://shop.example/p-7', title: 'Lamp', productId: 'p-7' };
    const headless = { interface: 'headless' as const };
    expect(pageViewOf(event({ ...headless, data: { customerId: 'c-1', includeProduct: 1, page } }))).toEqual({
      storeId: 'st_1',
      contactKey: 'customer:c-1',
      sourceId: 'src-1',
      url: 'https://shop.example/p-7',
      title: 'Lamp',
      productId: 'p-7',
      viewedAt: 1_700_000_500,
      interface: 'headless',
    });
    expect(pageViewOf(event({ ...headless, data: { includeProduct: 0, page } }))).toEqual({
      storeId: 'st_1',
      contactKey: 'guest',
      sourceId: 'src-1',
      url: 'https://shop.example/p-7',
      title: 'Lamp',
      viewedAt: 1_700_000_500,
      interface: 'headless',
    });
  });

  it('any other event is no page view', () => {
    expect(pageViewOf(event({ endpoint: 'carts/update', data: { token: 't' } }))).toBeUndefined();
  });
});
