/** The counters worker's claims (`shared/domain/attribution/queued-counts.ts`): one conditional put per message. */
import { systemClock } from '#shared/clock.ts';
import type { CountsClaims } from '#shared/domain/attribution/ports.ts';
import { itemMeta, keys } from './keys.ts';
import { putIfAbsent } from './table.ts';

/** Longer than the counters queue keeps a message (SQS's default, 4 days): a redelivery always finds its claim. */
const CLAIM_TTL_SECONDS = 7 * 86_400;

export const dynamoCountsClaims = (): CountsClaims => ({
  claim: (id) =>
    putIfAbsent({
      ...keys.countsClaim(id),
      ...itemMeta('countsClaim'),
      expiresAt: Math.floor(systemClock.now() / 1000) + CLAIM_TTL_SECONDS,
    }),
});
