/**
 * Unsubscribe tokens: one per recipient and message, unguessable and tamper-proof. The token is the Base64url JSON of
 * what it unsubscribes, a dot, and the Base64url HMAC-SHA256 of that part; nothing is stored, and a changed byte fails
 * verification. The secret is derived from the service master key (see `adapters/email/unsubscribe-links.ts`).
 */
import { signToken, verifyToken } from './signed-token.ts';

export interface UnsubscribeClaim {
  readonly storeId: string;
  /** The recipient's address, lower-cased. */
  readonly email: string;
  /** The batch id or flow run id the message belongs to (the spec's `transmission_id`). */
  readonly transmissionId: string;
}

export const signUnsubscribeToken = (claim: UnsubscribeClaim, secret: Buffer): string =>
  signToken({ s: claim.storeId, e: claim.email.toLowerCase(), t: claim.transmissionId }, secret);

/** The claim, or `undefined` for a malformed, altered or foreign token. */
export const verifyUnsubscribeToken = (token: string, secret: Buffer): UnsubscribeClaim | undefined => {
  const parsed = verifyToken(token, secret);
  if (!parsed) return undefined;
  const { s, e, t } = parsed;
  if (typeof s !== 'string' || typeof e !== 'string' || typeof t !== 'string') return undefined;
  return { storeId: s, email: e, transmissionId: t };
};
