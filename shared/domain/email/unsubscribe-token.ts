/**
 * Unsubscribe tokens: one per recipient and message, unguessable and tamper-proof. The token is the Base64url JSON of
 * what it unsubscribes, a dot, and the Base64url HMAC-SHA256 of that part; nothing is stored, and a changed byte fails
 * verification. The secret is derived from the service master key (see `adapters/email/unsubscribe-links.ts`).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface UnsubscribeClaim {
  readonly storeId: string;
  /** The recipient's address, lower-cased. */
  readonly email: string;
  /** The batch id or flow run id the message belongs to (the spec's `transmission_id`). */
  readonly transmissionId: string;
}

const mac = (secret: Buffer, payload: string) => createHmac('sha256', secret).update(payload).digest('base64url');

export const signUnsubscribeToken = (claim: UnsubscribeClaim, secret: Buffer): string => {
  const payload = Buffer.from(
    JSON.stringify({ s: claim.storeId, e: claim.email.toLowerCase(), t: claim.transmissionId }),
  ).toString('base64url');
  return `${payload}.${mac(secret, payload)}`;
};

/** The claim, or `undefined` for a malformed, altered or foreign token. */
export const verifyUnsubscribeToken = (token: string, secret: Buffer): UnsubscribeClaim | undefined => {
  if (token.length > 2048) return undefined;
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) return undefined;
  const expected = Buffer.from(mac(secret, payload));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const { s, e, t } = parsed;
    if (typeof s !== 'string' || typeof e !== 'string' || typeof t !== 'string') return undefined;
    return { storeId: s, email: e, transmissionId: t };
  } catch {
    return undefined;
  }
};
