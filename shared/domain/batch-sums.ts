/**
 * Sums kept in memory for a queue batch and written at its end, one write per key (counters that every
 * message of a batch adds to cost one write per store and period, not one per message). A write that fails keeps its
 * sums for the next flush of the same warm worker: late rather than lost. Used by the attribution counters
 * (`attribution/counter-buffer.ts`) and the bounce guard (`email/reputation.ts`).
 */
export interface BatchSums<K extends readonly string[]> {
  /** Adds `deltas` to the sums kept under `key`. */
  add(key: K, deltas: Readonly<Record<string, number>>): void;
  /** Writes every key's sums; answers how many writes failed (kept) and the first error. */
  flush(): Promise<{ readonly failed: number; readonly error?: unknown }>;
  /** Every key's sums, taken out (nothing is kept): for a caller that writes them all at once itself. */
  take(): { readonly key: K; readonly sums: Readonly<Record<string, number>> }[];
}

export const batchSums = <K extends readonly string[]>(
  write: (key: K, sums: Readonly<Record<string, number>>) => Promise<void>,
): BatchSums<K> => {
  let pending = new Map<string, { key: K; sums: Record<string, number> }>();
  const add = (key: K, deltas: Readonly<Record<string, number>>) => {
    const id = JSON.stringify(key);
    let entry = pending.get(id);
    if (!entry) {
      entry = { key, sums: {} };
      pending.set(id, entry);
    }
    for (const [name, n] of Object.entries(deltas)) entry.sums[name] = (entry.sums[name] ?? 0) + n;
  };
  const take = () => {
    const taken = [...pending.values()];
    pending = new Map();
    return taken;
  };
  return {
    add,
    take,
    async flush() {
      if (pending.size === 0) return { failed: 0 };
      const taken = take();
      const results = await Promise.allSettled(taken.map((entry) => write(entry.key, entry.sums)));
      let failed = 0;
      let error: unknown;
      results.forEach((result, i) => {
        if (result.status === 'fulfilled') return;
        if (failed++ === 0) error = result.reason;
        const entry = taken[i] as (typeof taken)[number];
        add(entry.key, entry.sums);
      });
      return failed === 0 ? { failed } : { failed, error };
    },
  };
};
