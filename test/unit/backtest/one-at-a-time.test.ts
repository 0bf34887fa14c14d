/**
 * The synchronous backtest runs one per store at a time (each holds a 2 GB function for up to 24 s): a second one of
 * the same store while the first replays is answered 429, another store's is not held back, and the slot is given
 * back when the replay answers or fails.
 */
import { describe, expect, it } from 'vitest';
import { backtestOneAtATime, SYNC_BACKTEST_SLOT_SECONDS } from '#shared/domain/backtest/backtest.ts';
import type { Flow } from '#shared/domain/flows/flow.ts';
import { isAppError } from '#shared/errors.ts';
import { backtestFakes } from '#test/support/memory/backtest.ts';
import { emailStep, flowOf, STORE } from '#test/support/memory/flow-engine.ts';
import { memoryStoreSlot } from '#test/support/memory/store-slot.ts';

const T0 = Date.UTC(2026, 9, 1);
const request = { from: T0 / 1000, to: T0 / 1000 + 86_400, limit: 10 };
const OTHER = 'st_BBBBBBBBBBBBBBBBBBBB';
const flow = (): Flow => flowOf('fl_cart', 'abandoned_cart', { consent: 'subscribed', steps: [emailStep('only')] });

/** Backtests whose history read waits until `open()`: the first one is still replaying while the test asks again. */
const setup = () => {
  const f = backtestFakes({ flows: [flow(), { ...flow(), storeId: OTHER }] });
  let open: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const page = f.deps.history.page.bind(f.deps.history);
  const slot = memoryStoreSlot(f.deps.clock);
  const deps = {
    ...f.deps,
    flows: { get: async (storeId: string, id: string) => ({ ...flow(), id, storeId }) },
    history: {
      page: async (...args: Parameters<typeof page>) => {
        await gate;
        return page(...args);
      },
    },
    slot,
  };
  return { deps, slot, open };
};

const refusal = (error: unknown) =>
  isAppError(error) ? { kind: error.kind, retryAfter: error.retryAfterSeconds } : error;

describe('the synchronous backtest', () => {
  it('answers a second one of the same store 429 while the first replays; another store’s runs', async () => {
    const { deps, slot, open } = setup();
    const first = backtestOneAtATime(deps, STORE, 'fl_cart', request);
    await Promise.resolve();
    await expect(backtestOneAtATime(deps, STORE, 'fl_cart', request).catch(refusal)).resolves.toEqual({
      kind: 'rate_limited',
      retryAfter: SYNC_BACKTEST_SLOT_SECONDS,
    });
    const other = backtestOneAtATime(deps, OTHER, 'fl_cart', request);
    open();
    await expect(first).resolves.toMatchObject({ summary: expect.anything() });
    await expect(other).resolves.toMatchObject({ summary: expect.anything() });
    expect(slot.held.size).toBe(0);
    await expect(backtestOneAtATime(deps, STORE, 'fl_cart', request)).resolves.toBeDefined();
  });

  it('gives its slot back when the replay fails', async () => {
    const { deps, slot, open } = setup();
    open();
    const failing = { ...deps, history: { page: async () => Promise.reject(new Error('read failed')) } };
    await expect(backtestOneAtATime(failing, STORE, 'fl_cart', request)).rejects.toThrow('read failed');
    expect(slot.held.size).toBe(0);
  });
});
