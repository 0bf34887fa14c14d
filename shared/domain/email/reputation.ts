/**
 * Each store's bounce and complaint rates, so one store's bad list cannot put the shared SES account at risk (SES
 * reviews an account whose bounce rate passes about 5 % or complaint rate 0.1 %, and may pause it for every store).
 * Deliveries, permanent bounces and complaints are counted per store and UTC day as SES reports them; over the last
 * two days, a store with enough volume above either threshold has its marketing mail paused — bulk sends are refused
 * (409) and marketing flow emails exit `sending_paused` — while its transactional mail goes on. The pause lasts until
 * the rates fall back (as the days roll over) or an operator resumes the store (`store resume-sending`), which starts
 * its counts afresh.
 */
import { batchSums } from '#shared/domain/batch-sums.ts';
import { conflict } from '#shared/errors.ts';
import { sendDay } from './pacing.ts';

export const REPUTATION = {
  /** Deliveries and bounces below this, over the window, are too few to judge. */
  minVolume: 200,
  maxBounceRate: 0.05,
  maxComplaintRate: 0.001,
  /** Today and yesterday (UTC). */
  windowDays: 2,
} as const;

export type ReputationEvent = 'delivered' | 'bounced' | 'complained';

export interface ReputationCounts {
  readonly delivered: number;
  readonly bounced: number;
  readonly complained: number;
}

/** Per-store counters of deliveries, permanent bounces and complaints, by UTC day. */
export interface StoreReputation {
  /** Adds `n` (default 1) to the store's count of `event` for `day`. */
  count(storeId: string, day: string, event: ReputationEvent, n?: number): Promise<void>;
  /** The counts of `days`, added up. */
  counts(storeId: string, days: readonly string[]): Promise<ReputationCounts>;
  /** Forgets the counts of `days` (an operator resuming the store). */
  reset(storeId: string, days: readonly string[]): Promise<void>;
}

/** The days the guard looks at, newest first. */
export const reputationDays = (now: number): string[] =>
  Array.from({ length: REPUTATION.windowDays }, (_, i) => sendDay(now - i * 86_400_000));

const percent = (rate: number) => `${(rate * 100).toFixed(2).replace(/\.?0+$/, '')}%`;

/** Why the store's marketing mail is paused, or undefined when it is in good standing. */
export const pauseReason = ({ delivered, bounced, complained }: ReputationCounts): string | undefined => {
  const volume = delivered + bounced;
  if (volume < REPUTATION.minVolume) return undefined;
  const bounceRate = bounced / volume;
  if (bounceRate > REPUTATION.maxBounceRate) {
    return `its bounce rate over the last two days is ${percent(bounceRate)}, above ${percent(REPUTATION.maxBounceRate)}`;
  }
  const complaintRate = complained / volume;
  if (complaintRate > REPUTATION.maxComplaintRate) {
    return `its complaint rate over the last two days is ${percent(complaintRate)}, above ${percent(REPUTATION.maxComplaintRate)}`;
  }
  return undefined;
};

/** The error a paused store's bulk send gets. */
export const sendingPaused = (reason: string) =>
  conflict(
    `Marketing email is paused for this store: ${reason}. Transactional flow email still goes; clean the list and ask ` +
      'the operator to resume sending',
  );

/** Why a store's marketing mail is paused right now, or undefined (wired with a short per-store cache). */
export type StandingCheck = (storeId: string) => Promise<string | undefined>;

export const standingOf =
  (reputation: Pick<StoreReputation, 'counts'>, clock: { now(): number }): StandingCheck =>
  async (storeId) =>
    pauseReason(await reputation.counts(storeId, reputationDays(clock.now())));

/**
 * The guard's counts a queue batch adds, written once at its end (the SES events worker's `afterBatch`): one write per
 * store, day and kind of event for the whole batch instead of one per event. A flush that fails keeps its counts for
 * the next one (late rather than lost); the guard reads them a batch later, seconds.
 */
export const reputationBuffer = (
  target: StoreReputation,
): { readonly reputation: StoreReputation; flush(): Promise<void> } => {
  const sums = batchSums<readonly [storeId: string, day: string, event: ReputationEvent]>(
    ([storeId, day, event], { n }) => target.count(storeId, day, event, n),
  );
  return {
    reputation: {
      ...target,
      async count(storeId, day, event, n = 1) {
        sums.add([storeId, day, event], { n });
      },
    },
    async flush() {
      const { failed, error } = await sums.flush();
      if (failed > 0) throw error;
    },
  };
};
