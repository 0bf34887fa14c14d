/**
 * Per-store request budgets in fixed wall-clock seconds, like the server's rate-limit windows: the load generators
 * keep each store under its budget, so a 429 in the results points at the server, not at the generator.
 */
import { sleep } from './stats.ts';

/**
 * Requests counted per store in the current wall-clock second. A request counted in one second may reach the server
 * in the next; with at most `concurrency` of a store's requests in flight, budget + concurrency stays under the limit
 * when the budget leaves that margin.
 */
export class StoreWindows {
  readonly #counts: Uint32Array;
  #second = 0;

  constructor(stores: number) {
    this.#counts = new Uint32Array(stores);
  }

  get stores(): number {
    return this.#counts.length;
  }

  /** Counts one request of `store` unless it already made `budget` this second (false then). */
  take(store: number, budget: number): boolean {
    const second = Math.floor(Date.now() / 1000);
    if (second !== this.#second) {
      this.#second = second;
      this.#counts.fill(0);
    }
    const used = this.#counts[store] ?? 0;
    if (used >= budget) return false;
    this.#counts[store] = used + 1;
    return true;
  }
}

/** Sleeps until just past the next wall-clock second, when every store's window starts afresh. */
export const nextSecond = (): Promise<void> => sleep(1000 - (Date.now() % 1000) + 1);

/** Waits until `store` may send within `budget` requests a second; `waits` counts the seconds waited. */
export const storePacer = (stores: number, budget: number) => {
  const windows = new StoreWindows(stores);
  let waits = 0;
  return {
    async take(store: number): Promise<void> {
      while (!windows.take(store, budget)) {
        waits++;
        await nextSecond();
      }
    },
    get waits() {
      return waits;
    },
  };
};
