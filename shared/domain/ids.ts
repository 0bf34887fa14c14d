import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Random base62 string. Rejection sampling keeps every character uniform (a plain `byte % 62` would favour the first
 * eight characters), which matters for API keys.
 */
export const randomBase62 = (length: number): string => {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
};

/** Opaque ids: a short prefix naming the entity, then 20 random base62 characters (~119 bits). */
export const newId = (prefix: 'st' | 'ct'): string => `${prefix}_${randomBase62(20)}`;
