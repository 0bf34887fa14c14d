/**
 * Each store's bounce and complaint rates, so one store's bad list cannot put the shared SES account at risk. SES puts
 * an account under review when its bounce rate passes 5 % or its complaint rate 0.1 %, and may pause it (for every
 * store on it) at 10 % and 0.5 %, judged over the account's recent volume. Deliveries, permanent bounces and
 * complaints are counted per store and UTC day as SES reports them; over the last two days each is judged on its own,
 * and only on evidence enough to be more than noise (`REPUTATION`):
 * - **warning**: the store passes SES's review level with a few events behind it; nothing is stopped, the merchant
 *   is told (console, settings) to clean the list;
 * - **paused**: the store passes SES's pause level with a handful of events behind it: its marketing mail is paused —
 *   bulk sends are refused (409) and marketing flow emails exit `sending_paused` — while its transactional mail goes
 *   on. The pause lasts until the rates fall back (as the days roll over) or an operator resumes the store (`store
 *   resume-sending`), which starts its counts afresh.
 * One complaint among a few hundred deliveries (0.3 %, far above SES's review rate, but one person) warns nobody and
 * pauses nothing.
 */
import { batchSums } from '#shared/domain/batch-sums.ts';
import { conflict } from '#shared/errors.ts';
import { sendDay } from './pacing.ts';

export const REPUTATION = {
  /** Deliveries and bounces below this, over the window, are too few to judge. */
  minVolume: 200,
  bounces: {
    /** SES's review level, and the bounces it takes to warn. */
    warnRate: 0.05,
    warnAtLeast: 10,
    /** SES's pause level, and the bounces it takes to pause. */
    pauseRate: 0.1,
    pauseAtLeast: 20,
  },
  complaints: {
    warnRate: 0.001,
    warnAtLeast: 2,
    pauseRate: 0.005,
    pauseAtLeast: 5,
  },
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

/** A store's sending standing: `ok`, or a `warning` or a `pause` with the reason, in words a merchant reads. */
export type Standing = { readonly state: 'ok' } | { readonly state: 'warning' | 'paused'; readonly reason: string };

type Judged = 'bounce' | 'complaint';

/** The standing of one kind of event: its count and rate against its warning and pause levels. */
const judge = (kind: Judged, count: number, volume: number): Standing => {
  const levels = kind === 'bounce' ? REPUTATION.bounces : REPUTATION.complaints;
  const rate = count / volume;
  const said = `its ${kind} rate over the last two days is ${percent(rate)} (${count} of ${volume})`;
  if (count >= levels.pauseAtLeast && rate > levels.pauseRate) {
    return { state: 'paused', reason: `${said}, above ${percent(levels.pauseRate)}` };
  }
  if (count >= levels.warnAtLeast && rate > levels.warnRate) {
    return { state: 'warning', reason: `${said}, above ${percent(levels.warnRate)}` };
  }
  return { state: 'ok' };
};

const SEVERITY = { ok: 0, warning: 1, paused: 2 } as const;

/** The store's standing over its counts: bounces and complaints judged apart, the graver one said. */
export const standingFrom = ({ delivered, bounced, complained }: ReputationCounts): Standing => {
  const volume = delivered + bounced;
  if (volume < REPUTATION.minVolume) return { state: 'ok' };
  const bounces = judge('bounce', bounced, volume);
  const complaints = judge('complaint', complained, volume);
  return SEVERITY[complaints.state] > SEVERITY[bounces.state] ? complaints : bounces;
};

/** Why the store's marketing mail is paused, or undefined when it is not (in good standing, or only warned). */
export const pauseReason = (counts: ReputationCounts): string | undefined => {
  const standing = standingFrom(counts);
  return standing.state === 'paused' ? standing.reason : undefined;
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
  async (storeId) => {
    const standing = await readStanding(reputation, clock)(storeId);
    return standing.state === 'paused' ? standing.reason : undefined;
  };

/** The store's whole standing right now (ok, warning or paused), as the settings API shows it. */
export const readStanding =
  (reputation: Pick<StoreReputation, 'counts'>, clock: { now(): number }) =>
  async (storeId: string): Promise<Standing> =>
    standingFrom(await reputation.counts(storeId, reputationDays(clock.now())));

/**
 * The guard's counts a queue batch adds, written once at its end (the SES events worker's `afterBatch`): one write per
 * store, day and kind of event for the whole batch instead of one per event. A flush that fails keeps its counts for
 * the next one (late rather than lost); the guard reads them a batch later, seconds.
 */
export const reputationBuffer = (
  target: StoreReputation,
): {
  readonly reputation: StoreReputation;
  /** Writes the counts; answers the stores they were for (whose standing may have changed since). */
  flush(): Promise<readonly string[]>;
} => {
  const sums = batchSums<readonly [storeId: string, day: string, event: ReputationEvent]>(
    ([storeId, day, event], { n }) => target.count(storeId, day, event, n),
  );
  const stores = new Set<string>();
  return {
    reputation: {
      ...target,
      async count(storeId, day, event, n = 1) {
        stores.add(storeId);
        sums.add([storeId, day, event], { n });
      },
    },
    async flush() {
      const { failed, error } = await sums.flush();
      if (failed > 0) throw error;
      const written = [...stores];
      stores.clear();
      return written;
    },
  };
};

/** What the store's webhooks last said of its pause: paused or not, and how many changes they announced. */
export interface StandingAnnouncements {
  last(storeId: string): Promise<{ readonly paused: boolean; readonly version: number }>;
  /** Records change `version` (paused or not) if the last recorded is `version - 1`; false when another did first. */
  record(storeId: string, paused: boolean, version: number): Promise<boolean>;
}

export interface AnnounceStandingDeps {
  readonly reputation: Pick<StoreReputation, 'counts'>;
  readonly announcements: StandingAnnouncements;
  readonly webhooks: {
    emit(storeId: string, topic: 'store/sending_paused', body: Record<string, unknown>, eventId: string): Promise<void>;
  };
  readonly clock: { now(): number };
}

/**
 * Tells the store's `store/sending_paused` webhook when the guard pauses its marketing mail and when the pause ends,
 * once per change: the change's number names the event (`sending-standing#<n>`), emitted before the change is
 * recorded, so a process stopped in between emits the same event again (one delivery, at least once) and a
 * concurrent announcer records nothing twice. Answers the change announced, if any.
 */
export const announceStanding = async (
  deps: AnnounceStandingDeps,
  storeId: string,
): Promise<'paused' | 'resumed' | undefined> => {
  const standing = await readStanding(deps.reputation, deps.clock)(storeId);
  const paused = standing.state === 'paused';
  const last = await deps.announcements.last(storeId);
  if (last.paused === paused) return undefined;
  const version = last.version + 1;
  await deps.webhooks.emit(
    storeId,
    'store/sending_paused',
    {
      store_id: storeId,
      paused,
      reason: standing.state === 'paused' ? standing.reason : null,
      timestamp: Math.floor(deps.clock.now() / 1000),
    },
    `sending-standing#${version}`,
  );
  await deps.announcements.record(storeId, paused, version);
  return paused ? 'paused' : 'resumed';
};
