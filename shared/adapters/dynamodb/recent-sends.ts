/**
 * Recent marketing sends per contact (the frequency cap, docs/smart-sending.md): one item per store and address,
 * `sends` the sends of the last 7 days (`{at, id?}`, at most `RECENT_SENDS_KEPT`) and `rev`, removed by the table's
 * TTL a week after the last send. A flow email takes its place with a put conditional on `rev` (re-read on a race);
 * a campaign page's batch write does not check `rev`, so a flow email and a campaign page writing one address in the
 * same instant may keep one send of the two (documented).
 */

import { dynamo } from '#shared/adapters/aws-clients.ts';
import { PutCommand } from '#shared/adapters/dynamodb-client.ts';
import type { RecentSends } from '#shared/domain/email/ports.ts';
import { keptSends, RECENT_SENDS_WINDOW_MS, type RecentSend } from '#shared/domain/email/smart-sending.ts';
import { batchGet, batchPut } from './batch.ts';
import { itemMeta, keys } from './keys.ts';
import { getItem, isConditionFailure, tableName } from './table.ts';

/** Races a take re-reads before it gives up (each one is another worker's send to the same address). */
const TAKE_ATTEMPTS = 5;

const sendsOf = (item: Record<string, unknown> | undefined): RecentSend[] =>
  Array.isArray(item?.sends)
    ? item.sends.flatMap((s: { at?: unknown; id?: unknown }) =>
        typeof s?.at === 'number' ? [{ at: s.at, ...(typeof s.id === 'string' ? { id: s.id } : {}) }] : [],
      )
    : [];

const timesOf = (sends: readonly RecentSend[]) => sends.map((s) => s.at).sort((a, b) => a - b);

const itemOf = (storeId: string, email: string, sends: readonly RecentSend[], rev: number, now: number) => ({
  ...keys.recentSends(storeId, email),
  ...itemMeta('recentSends'),
  storeId,
  email,
  sends: keptSends(sends, now),
  rev,
  expiresAt: Math.floor((now + RECENT_SENDS_WINDOW_MS) / 1000) + 3600,
});

export const dynamoRecentSends = (): RecentSends => {
  const itemsAmong = async (storeId: string, emails: readonly string[]) => {
    const unique = [...new Set(emails.map((email) => email.toLowerCase()))];
    const found = new Map<string, Record<string, unknown>>();
    if (unique.length === 0) return found;
    for (const item of await batchGet(unique.map((email) => keys.recentSends(storeId, email)))) {
      found.set(String(item.email), item);
    }
    return found;
  };
  /** Writes the address's sends if its item is still at `rev` (0: none); false on a race. */
  const putAt = async (storeId: string, email: string, sends: readonly RecentSend[], rev: number, now: number) => {
    try {
      await dynamo().send(
        new PutCommand({
          TableName: tableName(),
          Item: itemOf(storeId, email, sends, rev + 1, now),
          ConditionExpression: rev === 0 ? 'attribute_not_exists(pk)' : 'rev = :rev',
          ...(rev === 0 ? {} : { ExpressionAttributeValues: { ':rev': rev } }),
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  };

  return {
    async get(storeId, email) {
      return timesOf(sendsOf(await getItem(keys.recentSends(storeId, email))));
    },
    async among(storeId, emails, exceptId) {
      const items = await itemsAmong(storeId, emails);
      return new Map(
        [...items].map(([email, item]) => [email, timesOf(sendsOf(item).filter((s) => s.id !== exceptId))]),
      );
    },
    async record(storeId, emails, send) {
      const before = await itemsAmong(storeId, emails);
      const unique = [...new Set(emails.map((email) => email.toLowerCase()))];
      const fresh = unique.filter((email) => !sendsOf(before.get(email)).some((s) => s.id === send.id));
      await batchPut(
        fresh.map((email) => {
          const item = before.get(email);
          return itemOf(storeId, email, [...sendsOf(item), send], Number(item?.rev ?? 0) + 1, send.at);
        }),
      );
    },
    async take(storeId, rawEmail, send, allows) {
      const email = rawEmail.toLowerCase();
      for (let attempt = 0; ; attempt++) {
        const item = await getItem(keys.recentSends(storeId, email));
        const sends = sendsOf(item);
        const others = timesOf(sends.filter((s) => s.id !== send.id));
        if (sends.some((s) => s.id === send.id)) return { taken: true, times: others };
        if (!allows(others)) return { taken: false, times: others };
        if (await putAt(storeId, email, [...sends, send], Number(item?.rev ?? 0), send.at)) {
          return { taken: true, times: others };
        }
        if (attempt + 1 >= TAKE_ATTEMPTS) throw new Error(`recent sends of ${email}: ${TAKE_ATTEMPTS} races in a row`);
      }
    },
    async release(storeId, rawEmail, id) {
      const email = rawEmail.toLowerCase();
      for (let attempt = 0; attempt < TAKE_ATTEMPTS; attempt++) {
        const item = await getItem(keys.recentSends(storeId, email));
        const sends = sendsOf(item);
        if (!sends.some((s) => s.id === id)) return;
        const rest = sends.filter((s) => s.id !== id);
        const latest = rest.reduce((max, s) => Math.max(max, s.at), 0);
        if (await putAt(storeId, email, rest, Number(item?.rev ?? 0), latest)) return;
      }
    },
  };
};
