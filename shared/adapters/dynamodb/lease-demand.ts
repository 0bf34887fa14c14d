/**
 * The one rule by which a warm instance takes ahead from a shared per-second counter or budget, so that a steady store
 * costs a few conditional writes a second instead of one per request: the edge's rate-limit tokens (`rate-limiter.ts`),
 * the pacer's store slots (`send-pacer.ts`) and the flow-run budget (`budgets.ts`). When what the instance holds does
 * not cover what is asked, it takes twice what it used in this second or the one before (its expected demand), at
 * least what is asked and at most `cap`; what it does not use in time is lost to the others.
 */

/** What one instance used of one counter in `second` and in the second before it. */
export interface SecondUsage {
  second: number;
  used: number;
  usedBefore: number;
}

/** `known` as of `second`: itself in its own second; else a fresh count, its `used` as `usedBefore` if just before. */
export const usageAt = (known: SecondUsage | undefined, second: number): SecondUsage =>
  known?.second === second ? known : { second, used: 0, usedBefore: known?.second === second - 1 ? known.used : 0 };

/** How much to take when what is held does not cover `asked`: twice the demand seen, at least `asked`, at most `cap`. */
export const leaseSize = (usage: SecondUsage, asked: number, cap: number): number =>
  Math.max(asked, Math.min(cap, 2 * Math.max(usage.used, usage.usedBefore)));
