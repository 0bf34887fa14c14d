/**
 * The backtest's bounds and inputs: the request body's rules, the event and time bounds (413, 422), flows it cannot
 * replay, and the store's contacts read at once instead of address by address.
 */
import { describe, expect, it } from 'vitest';
import { backtestFlow, parseBacktestRequest } from '#shared/domain/backtest/backtest.ts';
import { contactsUpTo } from '#shared/domain/backtest/sim-repositories.ts';
import type { Flow } from '#shared/domain/flows/flow.ts';
import { backtestFakes } from '#test/support/memory/backtest.ts';
import { customerOf, emailStep, flowOf, STORE } from '#test/support/memory/flow-engine.ts';

const T0 = Date.UTC(2026, 9, 1);
const period = { from: T0 / 1000, to: T0 / 1000 + 86_400, limit: 10 };
const cartFlow = (): Flow => flowOf('fl_cart', 'abandoned_cart', { consent: 'subscribed', steps: [emailStep('only')] });

const carts = (f: ReturnType<typeof backtestFakes>, count: number) => {
  for (let i = 0; i < count; i++) {
    f.events.push({
      storeId: STORE,
      sourceId: `s-${i}`,
      endpoint: 'carts/create',
      interface: 'general',
      acceptedAt: T0 + i * 1000,
      data: { token: `cart-${i}`, email: `p${i}@example.com`, line_items: [] },
    });
  }
};

const failure = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    return error as { kind?: string; message: string };
  }
  throw new Error('expected a failure');
};

describe('backtest request', () => {
  it('refuses a range over 31 days, a range that ends before it starts, and unknown fields, naming them', () => {
    expect(() => parseBacktestRequest({ from: 0, to: 32 * 86_400 })).toThrow(
      'a backtest covers at most 31 days (from … to is 32 days)',
    );
    expect(() => parseBacktestRequest({ from: 100, to: 100 })).toThrow('to must be after from');
    expect(() => parseBacktestRequest({ from: 'yesterday', to: 100 })).toThrow(
      'from must be a time in epoch seconds (a whole number)',
    );
    expect(() => parseBacktestRequest({ from: 0, to: 100, flow: {} })).toThrow('body has an unknown field "flow"');
    expect(() => parseBacktestRequest({ from: 0, to: 100, limit: 5000 })).toThrow(
      'limit must be a whole number from 1 to 2000',
    );
    expect(parseBacktestRequest({ from: 0, to: 100 })).toEqual({ from: 0, to: 100, limit: 200 });
  });

  it('names the field of an invalid unsaved definition', () => {
    expect(() =>
      parseBacktestRequest({ from: 0, to: 100, definition: { name: 'x', trigger: 'nope', steps: [] } }),
    ).toThrow(/^definition: /);
  });
});

describe('backtest bounds', () => {
  it('answers payload_too_large (413) when the period holds more events than the bound', async () => {
    const f = backtestFakes({ flows: [cartFlow()] });
    carts(f, 6);
    const error = await failure(backtestFlow({ ...f.deps, limits: { maxEvents: 5 } }, STORE, 'fl_cart', period));
    expect(error.kind).toBe('payload_too_large');
    expect(error.message).toBe(
      'The period holds more than 5 events, the most one backtest replays; backtest a shorter range',
    );
  });

  it('answers unprocessable (422) once the replay outlives its time budget, saying how far it got', async () => {
    const f = backtestFakes({ flows: [cartFlow()] });
    carts(f, 600);
    const error = await failure(backtestFlow({ ...f.deps, limits: { timeBudgetMs: -1 } }, STORE, 'fl_cart', period));
    expect(error.kind).toBe('unprocessable');
    expect(error.message).toMatch(
      /^The backtest did not finish within its budget of -0.001 s \(it had replayed 256 events/,
    );
  });

  it('answers not found for an unknown flow and unprocessable for a segment flow', async () => {
    const segment = flowOf('fl_seg', 'segment_entered', { segmentId: 'seg_1' });
    const f = backtestFakes({ flows: [segment] });
    expect((await failure(backtestFlow(f.deps, STORE, 'fl_nope', period))).message).toBe('Flow not found');
    const error = await failure(backtestFlow(f.deps, STORE, 'fl_seg', period));
    expect(error.kind).toBe('unprocessable');
    expect(error.message).toContain('segment_entered flows cannot be backtested');
  });
});

describe('contacts read at once', () => {
  it('reads every page, or gives up once the store has more than the bound', async () => {
    const pages = [[customerOf('a'), customerOf('b')], [customerOf('c')]];
    const page = async (after: unknown) => {
      const index = typeof after === 'number' ? after : 0;
      return index + 1 < pages.length ? { items: pages[index] ?? [], next: index + 1 } : { items: pages[index] ?? [] };
    };
    expect((await contactsUpTo(page, 3))?.map((c) => c.originId)).toEqual(['a', 'b', 'c']);
    expect(await contactsUpTo(page, 2)).toBeUndefined();
  });

  it('serves the replay from the contacts read at once, without a lookup per address', async () => {
    const f = backtestFakes({ flows: [cartFlow()] });
    const ada = customerOf('c-ada', { email: 'ada@example.com', emailConsent: { state: 'subscribed', updatedAt: 1 } });
    let lookups = 0;
    const deps = {
      ...f.deps,
      live: {
        ...f.deps.live,
        contacts: {
          find: async () => {
            lookups++;
            return [];
          },
        },
        allContacts: async () => [ada],
      },
    };
    f.events.push({
      storeId: STORE,
      sourceId: 's-ada',
      endpoint: 'carts/create',
      interface: 'general',
      acceptedAt: T0,
      data: {
        token: 'cart-ada',
        email: 'ada@example.com',
        line_items: [{ product_id: 'p', variant_id: 'v', title: 'Lamp', quantity: 1, price: '5' }],
      },
    });

    const answer = await backtestFlow(deps, STORE, 'fl_cart', period);

    expect(answer.runs.map((r) => r.email)).toEqual(['ada@example.com']);
    expect(lookups).toBe(0);
  });
});
