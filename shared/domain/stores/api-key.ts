/**
 * Store API keys ("Security Key", prefix `shop_`). Stored twice: as SHA-256 for lookup, and encrypted with AES-256-GCM
 * under the service master key, because webhook signatures (spec "Authentication" rule 5) need the key itself as the
 * HMAC secret. The key is never logged.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { randomBase62 } from '#shared/domain/ids.ts';

export const API_KEY_PREFIX = 'shop_';
/** 40 base62 characters: ~238 bits of entropy. */
const API_KEY_RANDOM_CHARS = 40;

export const generateApiKey = (): string => API_KEY_PREFIX + randomBase62(API_KEY_RANDOM_CHARS);

export const hashApiKey = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

/** Cheap shape check before any lookup, so junk never reaches the table. */
export const looksLikeApiKey = (key: string): boolean =>
  key.startsWith(API_KEY_PREFIX) && key.length >= API_KEY_PREFIX.length + 32 && key.length <= 128;

/** The publishable key's prefix: a browser-safe key that can only post headless events (docs/events.md). */
export const PUBLISHABLE_KEY_PREFIX = 'pk_';

export const generatePublishableKey = (): string => PUBLISHABLE_KEY_PREFIX + randomBase62(API_KEY_RANDOM_CHARS);

export const looksLikePublishableKey = (key: string): boolean =>
  key.startsWith(PUBLISHABLE_KEY_PREFIX) && key.length >= PUBLISHABLE_KEY_PREFIX.length + 32 && key.length <= 128;

/**
 * The AES-256 key derived from the master secret. The deployed secret is a generated 64-character string, so a plain
 * SHA-256 is enough to turn it into 32 key bytes (no password stretching needed for high-entropy input).
 */
export const masterKeyFromSecret = (secret: string): Buffer => createHash('sha256').update(secret, 'utf8').digest();

/** `v1.<iv>.<tag>.<ciphertext>` in base64url; the version prefix leaves room for key rotation. */
export const encryptApiKey = (key: string, masterKey: Buffer): string => {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', masterKey, iv);
  const data = Buffer.concat([cipher.update(key, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), data]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
};

export const decryptApiKey = (sealed: string, masterKey: Buffer): string => {
  const [version, iv, tag, data] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || !data) throw new Error('Unrecognised encrypted key format');
  const decipher = createDecipheriv('aes-256-gcm', masterKey, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
};
