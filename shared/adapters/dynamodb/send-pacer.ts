/**
 * The account's send rate, shared by every send worker and by flow emails: per second, one counter item for the
 * account (`keys.rate('ses-send', second)`, the rate limiter's counters) and one per store
 * (`ses-send#<storeId>`). A reservation adds its slots to both with conditional `ADD`s that never take a second past
 * its limit: the store's fair share, and the account rate (less the transactional reserve for marketing mail), see
 * `shared/domain/email/pacing.ts`. A request larger than what is left in a second spreads its slots over the next
 * seconds and is sent when its last second starts, so over any few seconds neither the account nor one store exceeds
 * its rate. SES quotas are per account and region, hence the account counter.
 *
 * Each pacer remembers, per counter and limit, the last second it found full, and starts its next walk after it: a
 * second's count only grows (but for a put-off chunk's best-effort give-back, which this may leave unused). Without it,
 * each of a 2,000-recipient send's 40 chunks walked every full second up to the horizon, two or three calls a second:
 * some 2,000 calls in the second the send was accepted (the noisy bench), every other store's mail waiting behind them.
 */

import { dynamo } from '#shared/adapters/aws-clients.ts';
import { UpdateCommand } from '#shared/adapters/dynamodb-client.ts';
import type { Clock } from '#shared/domain/clock.ts';
import type { SlotOwner } from '#shared/domain/email/pacing.ts';
import { slotLimits } from '#shared/domain/email/pacing.ts';
import type { DailySends, SendPacer } from '#shared/domain/email/ports.ts';
import { gatheredPerTurn } from './coalesced.ts';
import { keys } from './keys.ts';
import { leaseSize, type SecondUsage, usageAt } from './lease-demand.ts';
import { addToRateCounter } from './rate-limiter.ts';
import { getItem, isConditionFailure, tableName } from './table.ts';

const ACCOUNT = 'ses-send';

export interface PacerOptions {
  /** Slots are reserved at most this many seconds ahead; beyond, the work is put off instead (a worker waits). */
  readonly horizonSeconds: number;
  /**
   * Reservations of one store and class asked for during one turn of the event loop are made as one (the flow
   * worker: a batch's emails reserve side by side, one slot each): two conditional `ADD`s per store and turn instead
   * of two per email. Each caller is answered the second its own slots fall in, as if it had reserved alone in the
   * order asked; when the whole does not fit within the horizon, each reserves alone, as without gathering.
   */
  readonly gatherPerTurn?: boolean;
  /**
   * A store's slots of the current second are leased (the flow worker): a take this pacer cannot serve from
   * what it holds takes twice what it used of the store's counter in this second or the one before (at least what it
   * asked for, at most a quarter of the store's share) and keeps the rest for its next emails of the second, so a
   * store mailing steadily costs a write or two a second per worker instead of one per turn. Slots held and not used
   * in their second are lost to the store's own mail on other workers (never to another store's, never past the
   * store's share): the account's counter is not leased, so no store's lease takes another's room.
   */
  readonly leaseStoreSlots?: boolean;
}

/** Slots a reservation took: how many in each second (ascending), or how long to put the work off. */
type Reserved =
  | { readonly spread: readonly (readonly [second: number, slots: number])[] }
  | { readonly retryInSeconds: number };

export const dynamoSendPacer = (clock: Clock, options: PacerOptions): SendPacer => {
  /** Adds `count` slots to a counter's second (negative to give back); false when the second has not that much room. */
  const add = (key: string, second: number, count: number, limit: number) =>
    addToRateCounter(key, second, count, count > 0 ? limit : undefined);

  const used = async (key: string, second: number): Promise<number> => {
    const hits = (await getItem(keys.rate(key, second)))?.hits;
    return typeof hits === 'number' ? hits : 0;
  };

  /** `counter|limit` → the last second found full at that limit. */
  const fullThrough = new Map<string, number>();
  const knownFull = (key: string, limit: number, second: number) => (fullThrough.get(`${key}|${limit}`) ?? 0) >= second;
  const markFull = (key: string, limit: number, second: number) => {
    if (fullThrough.size > 10_000) fullThrough.clear();
    const id = `${key}|${limit}`;
    fullThrough.set(id, Math.max(fullThrough.get(id) ?? 0, second));
  };

  /** Slots given back to `second`: it may have room again. */
  const reopen = (key: string, limit: number, second: number) => {
    const id = `${key}|${limit}`;
    if ((fullThrough.get(id) ?? 0) >= second) fullThrough.set(id, second - 1);
  };

  /** A store counter's slots of one second this pacer holds (`leaseStoreSlots`), and what it used of it. */
  interface Lease extends SecondUsage {
    held: number;
  }
  const leases = new Map<string, Lease>();
  /** The lease of `key` at `limit` for `second`, when that counter is leased and `second` is the current one. */
  const leaseOf = (key: string, limit: number, second: number): Lease | undefined => {
    if (!options.leaseStoreSlots || key === ACCOUNT || second !== Math.floor(clock.now() / 1000)) return undefined;
    const id = `${key}|${limit}`;
    const known = leases.get(id);
    if (known?.second === second) return known;
    if (leases.size > 10_000) leases.clear();
    const fresh = { ...usageAt(known, second), held: 0 };
    leases.set(id, fresh);
    return fresh;
  };

  /** Takes up to `want` slots of one counter's second: what it got (0 when the second is full). */
  const take = async (key: string, second: number, want: number, limit: number): Promise<number> => {
    const lease = leaseOf(key, limit, second);
    if (!lease) return takeShared(key, second, want, limit);
    const fromLease = Math.min(lease.held, want);
    lease.held -= fromLease;
    const need = want - fromLease;
    let got = 0;
    if (need > 0) {
      const size = Math.min(limit, leaseSize(lease, need, Math.ceil(limit / 4)));
      // What the counter has room for, up to the lease (near the share's end, the room left rather than one by one).
      const leased = await takeShared(key, second, size, limit);
      got = Math.min(leased, need);
      lease.held += leased - got;
    }
    lease.used += fromLease + got;
    return fromLease + got;
  };

  /** Slots of `key`'s `second` taken and not used: kept in its lease when it has one, else given back to the counter. */
  const giveBack = async (key: string, limit: number, second: number, count: number): Promise<void> => {
    const lease = leaseOf(key, limit, second);
    if (lease) {
      lease.held += count;
      lease.used -= count;
      return;
    }
    reopen(key, limit, second);
    await add(key, second, -count, 0);
  };

  /** Takes up to `want` slots of one counter's second from the shared counter: what it got (0 when it is full). */
  const takeShared = async (key: string, second: number, want: number, limit: number): Promise<number> => {
    if (knownFull(key, limit, second)) return 0;
    if (await add(key, second, want, limit)) {
      if (want === limit) markFull(key, limit, second);
      return want;
    }
    const free = limit - (await used(key, second));
    const room = Math.min(want, free);
    const got = room > 0 && (await add(key, second, room, limit)) ? room : 0;
    if (got === 0 || got === free) markFull(key, limit, second);
    return got;
  };

  const reserveSlots = async (count: number, perSecond: number, owner: SlotOwner): Promise<Reserved> => {
    const limits = slotLimits(perSecond, owner.sendClass);
    const storeKey = `${ACCOUNT}#${owner.storeId}`;
    const first = Math.floor(clock.now() / 1000);
    const taken: [key: string, second: number, slots: number, limit: number][] = [];
    const spread: [second: number, slots: number][] = [];
    let remaining = count;
    let second = first;
    while (remaining > 0) {
      if (second > first + options.horizonSeconds) {
        // Not within reach: give the slots back (best effort; unused slots only slow others down) and put it off.
        await Promise.allSettled(
          taken.map(([key, s, n, limit]) => {
            reopen(key, limit, s);
            return add(key, s, -n, 0);
          }),
        );
        // Spread over a second horizon, so put-off chunks do not all come back in the same second.
        return { retryInSeconds: options.horizonSeconds + Math.ceil(Math.random() * options.horizonSeconds) };
      }
      // The store's share first (a busy store waits on its own counter), then the account.
      const fromStore = await take(storeKey, second, Math.min(remaining, limits.store), limits.store);
      if (fromStore > 0) {
        const fromAccount = await take(ACCOUNT, second, fromStore, limits.account);
        if (fromAccount < fromStore) await giveBack(storeKey, limits.store, second, fromStore - fromAccount);
        if (fromAccount > 0) {
          taken.push([storeKey, second, fromAccount, limits.store], [ACCOUNT, second, fromAccount, limits.account]);
          spread.push([second, fromAccount]);
          remaining -= fromAccount;
        }
      }
      if (remaining > 0) second += 1;
    }
    return { spread };
  };

  const reserve: SendPacer['reserve'] = async (count, perSecond, owner) => {
    const reserved = await reserveSlots(count, perSecond, owner);
    if ('retryInSeconds' in reserved) return reserved;
    return { at: (reserved.spread.at(-1)?.[0] ?? Math.floor(clock.now() / 1000)) * 1000 };
  };
  if (!options.gatherPerTurn) return { reserve };

  type Ask = { readonly count: number; readonly perSecond: number; readonly owner: SlotOwner };
  type Answer = Awaited<ReturnType<SendPacer['reserve']>>;

  /** One store's asks (of one class and rate) reserved as one, in the order asked. */
  const reserveTogether = async (asks: readonly Ask[]): Promise<Answer[]> => {
    if (asks.length === 1) {
      const [ask] = asks as [Ask];
      return [await reserve(ask.count, ask.perSecond, ask.owner)];
    }
    const [first] = asks as [Ask, ...Ask[]];
    const total = asks.reduce((sum, ask) => sum + ask.count, 0);
    const reserved = await reserveSlots(total, first.perSecond, first.owner);
    // Not within the horizon as a whole: each on its own in the order asked, as if not gathered (some may fit).
    if ('retryInSeconds' in reserved) {
      const alone = [];
      for (const ask of asks) alone.push(await reserve(ask.count, ask.perSecond, ask.owner));
      return alone;
    }
    // The slots handed out in the order asked: each caller sends once its own last slot's second starts.
    const seconds = reserved.spread.values();
    let [second, left] = seconds.next().value ?? [0, 0];
    return asks.map((ask) => {
      let want = ask.count;
      for (;;) {
        const used = Math.min(want, left);
        want -= used;
        left -= used;
        if (want === 0) return { at: second * 1000 };
        [second, left] = seconds.next().value ?? [second, Number.POSITIVE_INFINITY];
      }
    });
  };

  /**
   * A turn's asks of one class and rate, every store's: each store's slots of the current second taken from its own
   * counter (one conditional `ADD` per store, side by side), then all of them from the account counter in one (issue
   * 16: two `ADD`s per store and turn before, so a batch of eight stores' emails took sixteen). Account slots short of
   * what the stores got go to the stores in the order they first asked; the stores' slots left over are given back.
   * What does not fit the current second is reserved per store as before (`reserveTogether`), after it.
   */
  const reserveAcrossStores = async (asks: readonly Ask[]): Promise<Answer[]> => {
    const byStore = new Map<string, number[]>();
    asks.forEach((ask, i) => {
      const indices = byStore.get(ask.owner.storeId);
      if (indices) indices.push(i);
      else byStore.set(ask.owner.storeId, [i]);
    });
    if (byStore.size === 1) return reserveTogether(asks);
    const [{ perSecond, owner }] = asks as [Ask, ...Ask[]];
    const limits = slotLimits(perSecond, owner.sendClass);
    const second = Math.floor(clock.now() / 1000);
    const stores = [...byStore].map(([storeId, indices]) => ({
      storeKey: `${ACCOUNT}#${storeId}`,
      indices,
      wanted: indices.reduce((sum, i) => sum + (asks[i] as Ask).count, 0),
    }));
    const got = await Promise.all(
      stores.map(({ storeKey, wanted }) => take(storeKey, second, Math.min(wanted, limits.store), limits.store)),
    );
    const total = got.reduce((sum, n) => sum + n, 0);
    let granted = total > 0 ? await take(ACCOUNT, second, total, limits.account) : 0;
    const answers: Answer[] = new Array(asks.length);
    await Promise.all(
      stores.map(async ({ storeKey, indices }, s) => {
        // This store's part of the account's grant, handed to its asks in order while whole asks fit.
        const mine = Math.min(got[s] ?? 0, granted);
        granted -= mine;
        let used = 0;
        let served = 0;
        for (const i of indices) {
          const { count } = asks[i] as Ask;
          if (used + count > mine) break;
          used += count;
          answers[i] = { at: second * 1000 };
          served += 1;
        }
        // Slots taken and not handed out (short of the account, or too few for the next ask whole): given back.
        const giveBacks: Promise<unknown>[] = [];
        if ((got[s] ?? 0) > used) giveBacks.push(giveBack(storeKey, limits.store, second, (got[s] ?? 0) - used));
        if (mine > used) giveBacks.push(giveBack(ACCOUNT, limits.account, second, mine - used));
        await Promise.all(giveBacks);
        const rest = indices.slice(served);
        if (rest.length === 0) return;
        const later = await reserveTogether(rest.map((i) => asks[i] as Ask));
        rest.forEach((i, k) => {
          answers[i] = later[k] as Answer;
        });
      }),
    );
    return answers;
  };

  const gathered = gatheredPerTurn<Ask, Answer>((_group, asks) => reserveAcrossStores(asks));
  return {
    reserve: (count, perSecond, owner) => gathered(`${owner.sendClass}|${perSecond}`, { count, perSecond, owner }),
  };
};

/**
 * The daily cap's counters: one item per store and UTC day, a conditional `ADD` that never passes the cap. More than
 * the whole cap is refused without a write: the condition cannot say so on the day's first take, whose item does not
 * exist yet (`attribute_not_exists(sends)` held, and a first send of 3 under a cap of 2 went out whole).
 */
export const dynamoDailySends = (): DailySends => ({
  async take(storeId, day, count, cap, takenBy) {
    // Refused: over the cap, or this page was counted already (then it was taken, by its earlier attempt).
    const refused = async () => {
      if (!takenBy) return false;
      const item = await getItem(keys.dailySends(storeId, day));
      return item?.takenBy instanceof Set && item.takenBy.has(takenBy);
    };
    if (count > cap) return refused();
    try {
      await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.dailySends(storeId, day),
          UpdateExpression:
            'ADD sends :count' +
            (takenBy ? ', takenBy :takenBy' : '') +
            ' SET expiresAt = if_not_exists(expiresAt, :ttl), entity = :entity',
          // (no room taken yet OR room left) AND not yet taken by this page, written without grouping parentheses
          // (docs/decisions.md, "Condition expressions"); "no room taken yet" holds for any count up to the cap only
          // because a larger one was refused above.
          ConditionExpression: takenBy
            ? 'attribute_not_exists(sends) AND NOT contains(takenBy, :key) OR sends <= :room AND NOT contains(takenBy, :key)'
            : 'attribute_not_exists(sends) OR sends <= :room',
          ExpressionAttributeValues: {
            ':count': count,
            ':room': cap - count,
            // The campaign pages counted today (a page retried after its charge is not counted twice).
            ...(takenBy ? { ':takenBy': new Set([takenBy]), ':key': takenBy } : {}),
            // Kept two days past its own, then removed.
            ':ttl':
              Math.floor(Date.UTC(Number(day.slice(0, 4)), Number(day.slice(4, 6)) - 1, Number(day.slice(6))) / 1000) +
              3 * 86_400,
            ':entity': 'dailySends',
          },
        }),
      );
      return true;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return refused();
    }
  },
});
