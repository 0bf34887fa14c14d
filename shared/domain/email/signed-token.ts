/**
 * Signed tokens for links in mail (unsubscribe, sign-up confirmation): the Base64url JSON of a claim, a dot, and the
 * Base64url HMAC-SHA256 of that part. Nothing is stored; a changed byte fails verification. Each kind of link has its
 * own secret (derived from the service master key with its own label), so one kind's token never passes as another's.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

const mac = (secret: Buffer, payload: string) => createHmac('sha256', secret).update(payload).digest('base64url');

export const signToken = (claim: Readonly<Record<string, unknown>>, secret: Buffer): string => {
  const payload = Buffer.from(JSON.stringify(claim)).toString('base64url');
  return `${payload}.${mac(secret, payload)}`;
};

/** The signed JSON object, or `undefined` for a malformed, altered or foreign token. */
export const verifyToken = (token: string, secret: Buffer): Record<string, unknown> | undefined => {
  if (token.length > 2048) return undefined;
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) return undefined;
  const expected = Buffer.from(mac(secret, payload));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
};
