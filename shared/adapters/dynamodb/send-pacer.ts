/**
 * The account's send rate, shared by every send worker: one counter item per second (`keys.rate('ses-send', second)`,
 * the rate limiter's counters), into which each chunk reserves as many message slots as it sends with a conditional
 * `ADD` that never takes a second past the rate. A chunk larger than what is left in a second spreads its slots over
 * the next seconds and is sent when its last second starts, so over any few seconds the account never exceeds its
 * rate. SES quotas are per account and region, so the counter is not per store.
 */

import type { Clock } from '#shared/domain/clock.ts';
import type { SendPacer } from '#shared/domain/email/ports.ts';
import { keys } from './keys.ts';
import { addToRateCounter } from './rate-limiter.ts';
import { getItem } from './table.ts';

const KEY = 'ses-send';

export interface PacerOptions {
  /** Slots are reserved at most this many seconds ahead; beyond, the work is put off instead (a worker waits). */
  readonly horizonSeconds: number;
}

export const dynamoSendPacer = (clock: Clock, options: PacerOptions): SendPacer => {
  /** Adds `count` slots to `second` (negative to give back); false when the second has not that much room. */
  const add = (second: number, count: number, perSecond: number) =>
    addToRateCounter(KEY, second, count, count > 0 ? perSecond : undefined);

  const used = async (second: number): Promise<number> => {
    const hits = (await getItem(keys.rate(KEY, second)))?.hits;
    return typeof hits === 'number' ? hits : 0;
  };

  return {
    async reserve(count, perSecond) {
      const rate = Math.max(1, perSecond);
      const first = Math.floor(clock.now() / 1000);
      const taken: [number, number][] = [];
      let remaining = count;
      let second = first;
      while (remaining > 0) {
        if (second > first + options.horizonSeconds) {
          // Not within reach: give the slots back (best effort; unused slots only slow others down) and put it off.
          await Promise.allSettled(taken.map(([s, n]) => add(s, -n, rate)));
          // Spread over a second horizon, so put-off chunks do not all come back in the same second.
          return { retryInSeconds: options.horizonSeconds + Math.ceil(Math.random() * options.horizonSeconds) };
        }
        let want = Math.min(remaining, rate);
        let got = (await add(second, want, rate)) ? want : 0;
        if (got === 0) {
          // The second is partly taken: take what is left of it, if anything.
          want = Math.min(remaining, rate - (await used(second)));
          if (want > 0 && (await add(second, want, rate))) got = want;
        }
        if (got > 0) {
          taken.push([second, got]);
          remaining -= got;
        }
        if (remaining > 0) second += 1;
      }
      return { at: second * 1000 };
    },
  };
};
