/** Store API keys (spec "Authentication"; architecture §4): shape, lookup hash, and the key sealed at rest. */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  API_KEY_PREFIX,
  decryptApiKey,
  encryptApiKey,
  generateApiKey,
  hashApiKey,
  looksLikeApiKey,
  masterKeyFromSecret,
} from '#shared/domain/stores/api-key.ts';

const masterKey = masterKeyFromSecret('a-generated-master-secret-of-enough-entropy-for-tests');

/** Flips one bit of the base64url part `index` of a sealed key (`v1.<iv>.<tag>.<ciphertext>`). */
const tamper = (sealed: string, index: number): string => {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[index] ?? '', 'base64url');
  bytes[0] = (bytes[0] ?? 0) ^ 0x01;
  parts[index] = bytes.toString('base64url');
  return parts.join('.');
};

describe('API keys', () => {
  it('generates shop_ keys with at least 32 base62 characters after the prefix', () => {
    const key = generateApiKey();
    expect(key).toMatch(/^shop_[0-9A-Za-z]{32,}$/);
    expect(key.startsWith(API_KEY_PREFIX)).toBe(true);
    expect(looksLikeApiKey(key)).toBe(true);
  });

  it('generates a different key every time', () => {
    const keys = new Set(Array.from({ length: 100 }, generateApiKey));
    expect(keys.size).toBe(100);
  });

  it('hashes a key to the same SHA-256 hex every time, and different keys differently', () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toBe(hashApiKey(key));
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).not.toBe(hashApiKey(generateApiKey()));
  });

  it('refuses junk before any lookup: wrong prefix, too short, too long', () => {
    expect(looksLikeApiKey(`key_${'a'.repeat(40)}`)).toBe(false);
    expect(looksLikeApiKey(`shop_${'a'.repeat(31)}`)).toBe(false);
    expect(looksLikeApiKey(`shop_${'a'.repeat(32)}`)).toBe(true);
    expect(looksLikeApiKey(`shop_${'a'.repeat(200)}`)).toBe(false);
  });

  it('decrypts what it encrypted', () => {
    const key = generateApiKey();
    const sealed = encryptApiKey(key, masterKey);
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain(key.slice(API_KEY_PREFIX.length));
    expect(decryptApiKey(sealed, masterKey)).toBe(key);
  });

  it('seals the same key differently each time (fresh IV)', () => {
    const key = generateApiKey();
    expect(encryptApiKey(key, masterKey)).not.toBe(encryptApiKey(key, masterKey));
  });

  it('rejects a tampered ciphertext, tag or IV', () => {
    const sealed = encryptApiKey(generateApiKey(), masterKey);
    for (const part of [1, 2, 3]) expect(() => decryptApiKey(tamper(sealed, part), masterKey)).toThrow();
  });

  it('rejects decryption under another master key', () => {
    const sealed = encryptApiKey(generateApiKey(), masterKey);
    expect(() => decryptApiKey(sealed, masterKeyFromSecret('another-secret'))).toThrow();
    expect(() => decryptApiKey(sealed, randomBytes(32))).toThrow();
  });

  it('rejects an unknown sealed format', () => {
    const sealed = encryptApiKey(generateApiKey(), masterKey);
    expect(() => decryptApiKey(sealed.replace(/^v1\./, 'v2.'), masterKey)).toThrow('Unrecognised encrypted key format');
    expect(() => decryptApiKey('v1.only-two', masterKey)).toThrow('Unrecognised encrypted key format');
  });

  it('derives a 32-byte master key, the same from the same secret', () => {
    expect(masterKeyFromSecret('s')).toHaveLength(32);
    expect(masterKeyFromSecret('s').equals(masterKeyFromSecret('s'))).toBe(true);
    expect(masterKeyFromSecret('s').equals(masterKeyFromSecret('t'))).toBe(false);
  });
});
