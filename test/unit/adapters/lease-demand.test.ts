/** The take-ahead rule shared by the rate limiter, the pacer's store slots and the flow-run budget. */
import { describe, expect, it } from 'vitest';
import { leaseSize, usageAt } from '#shared/adapters/dynamodb/lease-demand.ts';

describe('usageAt', () => {
  it("keeps a second's count in that second, carries it as the next second's demand, and forgets older ones", () => {
    const known = { second: 10, used: 7, usedBefore: 3 };
    expect(usageAt(known, 10)).toBe(known);
    expect(usageAt(known, 11)).toEqual({ second: 11, used: 0, usedBefore: 7 });
    expect(usageAt(known, 12)).toEqual({ second: 12, used: 0, usedBefore: 0 });
    expect(usageAt(undefined, 12)).toEqual({ second: 12, used: 0, usedBefore: 0 });
  });
});

describe('leaseSize', () => {
  it('takes twice the larger of this and the last second, at least what is asked, at most the cap', () => {
    expect(leaseSize({ second: 1, used: 0, usedBefore: 0 }, 1, 10)).toBe(1);
    expect(leaseSize({ second: 1, used: 3, usedBefore: 2 }, 1, 10)).toBe(6);
    expect(leaseSize({ second: 1, used: 1, usedBefore: 4 }, 1, 10)).toBe(8);
    expect(leaseSize({ second: 1, used: 40, usedBefore: 0 }, 1, 10)).toBe(10);
    expect(leaseSize({ second: 1, used: 40, usedBefore: 0 }, 25, 10)).toBe(25);
  });
});
