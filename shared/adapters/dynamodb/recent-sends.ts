/**
 * Recent marketing sends per contact (the frequency cap, docs/smart-sending.md): one item per store and address,
 * `times` the send times of the last 7 days (at most `RECENT_SENDS_KEPT`), removed by the table's TTL a week after the
 * last send. A write is a read, then a put of the kept times plus the new one: two sends to one address in the same
 * instant may keep one time of the two (the cap then counts one email fewer; documented).
 */

import type { RecentSends } from '#shared/domain/email/ports.ts';
import { keptSendTimes, RECENT_SENDS_WINDOW_MS } from '#shared/domain/email/smart-sending.ts';
import { batchGet, batchPut } from './batch.ts';
import { itemMeta, keys } from './keys.ts';

const timesOf = (item: Record<string, unknown> | undefined): number[] =>
  Array.isArray(item?.times) ? item.times.filter((t): t is number => typeof t === 'number') : [];

export const dynamoRecentSends = (): RecentSends => {
  const among = async (storeId: string, emails: readonly string[]) => {
    const unique = [...new Set(emails.map((email) => email.toLowerCase()))];
    const found = new Map<string, number[]>();
    if (unique.length === 0) return found;
    const items = await batchGet(unique.map((email) => keys.recentSends(storeId, email)));
    for (const item of items)
      found.set(
        String(item.email),
        timesOf(item).sort((a, b) => a - b),
      );
    return found;
  };
  return {
    get: async (storeId, email) => (await among(storeId, [email])).get(email.toLowerCase()) ?? [],
    among,
    async record(storeId, emails, at) {
      const before = await among(storeId, emails);
      const unique = [...new Set(emails.map((email) => email.toLowerCase()))];
      await batchPut(
        unique.map((email) => ({
          ...keys.recentSends(storeId, email),
          ...itemMeta('recentSends'),
          storeId,
          email,
          times: keptSendTimes([...(before.get(email) ?? []), at], at),
          expiresAt: Math.floor((at + RECENT_SENDS_WINDOW_MS) / 1000) + 3600,
        })),
      );
    },
  };
};
