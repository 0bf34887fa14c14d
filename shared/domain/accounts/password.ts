/**
 * Password hashing with scrypt (memory-hard, in Node's standard library). A hash names its parameters, so they can be
 * raised later: a hash made with weaker ones still verifies, and is re-made with the current ones at the next
 * successful sign-in. Format: `scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt>$<hash>` (salt and hash in base64url).
 */
import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

export interface ScryptParams {
  /** log2 of the CPU/memory cost N. */
  readonly ln: number;
  readonly r: number;
  readonly p: number;
}

/**
 * N = 2^15, r = 8, p = 1: 32 MiB and 0.1–0.2 s of one core per hash. Above Django's scrypt default (N = 2^14), below
 * OWASP's table (N = 2^17, or N = 2^15 with p = 3); raise here, and stored hashes upgrade at their next sign-in.
 */
export const CURRENT_PARAMS: ScryptParams = { ln: 15, r: 8, p: 1 };
const SALT_BYTES = 16;
const HASH_BYTES = 32;

const derive = (password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const N = 2 ** params.ln;
    const options: ScryptOptions = { N, r: params.r, p: params.p, maxmem: 2 * 128 * N * params.r * params.p };
    // The asynchronous form runs on libuv's pool: the event loop stays free while a hash is computed.
    scrypt(password.normalize('NFC'), salt, HASH_BYTES, options, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });

const FORMAT = /^scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([\w-]+)\$([\w-]+)$/;

interface Parsed {
  readonly params: ScryptParams;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

const parse = (encoded: string): Parsed | undefined => {
  const m = FORMAT.exec(encoded);
  if (!m) return undefined;
  const params = { ln: Number(m[1]), r: Number(m[2]), p: Number(m[3]) };
  // Bounds keep a corrupt record from asking for gigabytes.
  if (params.ln < 10 || params.ln > 20 || params.r < 1 || params.r > 32 || params.p < 1 || params.p > 16)
    return undefined;
  return { params, salt: Buffer.from(m[4] ?? '', 'base64url'), hash: Buffer.from(m[5] ?? '', 'base64url') };
};

/** A new hash with a fresh random salt and the current parameters. */
export const hashPassword = async (password: string, params: ScryptParams = CURRENT_PARAMS): Promise<string> => {
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(password, salt, params);
  return `scrypt$ln=${params.ln},r=${params.r},p=${params.p}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
};

/** Compares in constant time; false for a wrong password and for a hash it cannot read. */
export const verifyPassword = async (password: string, encoded: string): Promise<boolean> => {
  const parsed = parse(encoded);
  if (!parsed) return false;
  const candidate = await derive(password, parsed.salt, parsed.params);
  return candidate.length === parsed.hash.length && timingSafeEqual(candidate, parsed.hash);
};

/** True when the hash was made with weaker parameters than the current ones. */
export const needsRehash = (encoded: string, params: ScryptParams = CURRENT_PARAMS): boolean => {
  const parsed = parse(encoded);
  return !parsed || parsed.params.ln < params.ln || parsed.params.r < params.r || parsed.params.p < params.p;
};

/** The hash of 32 random bytes that were never stored (made with {@link CURRENT_PARAMS}): no cold start makes one. */
const DECOY = 'scrypt$ln=15,r=8,p=1$KJXWw5bLnzZu0Kqh2nl39A$IcVF9TKG1W5__zBYv6ddbcXkhGSZJV8kwSGdsRksWSo';
let decoy: Promise<string> | undefined;

/**
 * A hash to verify against when the username is unknown, so an unknown user costs the same scrypt work as a wrong
 * password and the answer time does not tell usernames apart. Made afresh once if the parameters were raised.
 */
export const decoyHash = (): Promise<string> => {
  decoy ??= needsRehash(DECOY) ? hashPassword(randomBytes(32).toString('base64url')) : Promise.resolve(DECOY);
  return decoy;
};
