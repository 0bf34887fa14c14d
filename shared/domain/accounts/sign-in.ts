/**
 * OAuth sign-in (spec "OAuth sign-in"): a store key plus a sub-account's username and password buy a single-use,
 * five-minute link; opening it starts an eight-hour back-office session. Tokens and session ids are 256-bit random
 * values that exist only in the URL and the cookie: the table keeps their SHA-256.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as v from 'valibot';
import type { Clock } from '#shared/domain/clock.ts';
import type { StoreRepository } from '#shared/domain/stores/ports.ts';
import { parseOrThrow } from '#shared/domain/validation.ts';
import { forbidden, rateLimited, unauthorized, validationError } from '#shared/errors.ts';
import { type LockoutPolicy, MAX_PASSWORD_LENGTH, mayOpen, normalizeUsername } from './model.ts';
import { decoyHash, hashPassword, needsRehash, verifyPassword } from './password.ts';
import type { AccountRepository, Sessions, SignInLinks, SignInThrottle } from './ports.ts';

export const LINK_TTL_MS = 5 * 60_000;
export const SESSION_TTL_MS = 8 * 3_600_000;
const FIFTEEN_MINUTES = 15 * 60_000;
/** A username is locked for 15 minutes after 5 failed sign-ins within 15 minutes. */
export const USER_LOCKOUT: LockoutPolicy = { maxFailures: 5, windowMs: FIFTEEN_MINUTES, lockMs: FIFTEEN_MINUTES };
/**
 * A store key is locked after 50 failed sign-ins within 15 minutes, whatever the usernames: one key cannot spray a
 * common password over many usernames (each username's own limit would allow 5 guesses per name).
 */
export const STORE_LOCKOUT: LockoutPolicy = { maxFailures: 50, windowMs: FIFTEEN_MINUTES, lockMs: FIFTEEN_MINUTES };

/**
 * `__Host-`: browsers accept it only Secure, from a secure origin (HTTPS, or localhost and 127.0.0.1), with Path=/ and
 * no Domain, so no other host (a subdomain included) can set or shadow the session cookie.
 */
export const SESSION_COOKIE = '__Host-storeflow_session';
export const CALLBACK_PATH = '/oauth/callback';

export interface SignInDeps {
  readonly accounts: AccountRepository;
  readonly stores: Pick<StoreRepository, 'get'>;
  readonly links: SignInLinks;
  readonly sessions: Sessions;
  readonly throttle: SignInThrottle;
  readonly clock: Clock;
}

/** Exported for the API description. */
export const SignInRequest = v.object(
  {
    username: v.pipe(
      v.string('must be a string'),
      v.trim(),
      v.nonEmpty('must not be empty'),
      v.maxLength(254, 'must be at most 254 characters'),
    ),
    password: v.pipe(
      v.string('must be a string'),
      v.nonEmpty('must not be empty'),
      v.maxLength(MAX_PASSWORD_LENGTH, `must be at most ${MAX_PASSWORD_LENGTH} characters`),
    ),
  },
  'must be a JSON object',
);

/** The body of `POST /api/v1/oauth`: `{username, password}`, both non-empty strings. */
export const parseSignInRequest = (body: unknown): { username: string; password: string } => {
  // valibot's object schema takes an array for an object with no keys.
  if (Array.isArray(body)) throw validationError('body must be a JSON object');
  return parseOrThrow(SignInRequest, body);
};

/** Made before the account's sessions were revoked (`sessionsValidFrom`): no longer valid. */
const revoked = (account: { readonly sessionsValidFrom?: number }, createdAt: number) =>
  account.sessionsValidFrom !== undefined && createdAt < account.sessionsValidFrom;

/** 32 random bytes in base64url: 43 characters. */
const newSecret = (): string => randomBytes(32).toString('base64url');
const SECRET_SHAPE = /^[A-Za-z0-9_-]{43}$/;
export const hashSecret = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');

/**
 * A username's failures are counted per main account of the calling store: guesses through one tenant's store keys
 * lock the name for that tenant only, so they can never lock out another tenant's user, and an unknown name and another
 * tenant's name behave the same (both counted, both locked) from the caller's side.
 */
const userScope = (ownerId: string, username: string) => `user#${ownerId}#${username}`;
const storeScope = (storeId: string) => `store#${storeId}`;

const refused = (waitMs: number, who: string) => {
  const seconds = Math.ceil(waitMs / 1000);
  return rateLimited(seconds, `Too many failed sign-ins for ${who}; try again in ${seconds} seconds`);
};

/**
 * Counts the attempt in both scopes before any password is hashed, so that concurrent guesses cannot outrun the count:
 * at most 5 per username (50 per store key) pass in a window whatever arrives at once.
 */
const claimAttempts = async (deps: SignInDeps, userKey: string, storeId: string, now: number) => {
  const userWait = await deps.throttle.claimAttempt(userKey, now, USER_LOCKOUT);
  if (userWait > 0) throw refused(userWait, 'this username');
  const storeWait = await deps.throttle.claimAttempt(storeScope(storeId), now, STORE_LOCKOUT);
  if (storeWait > 0) {
    await deps.throttle.refund(userKey);
    throw refused(storeWait, 'this store key');
  }
};

/**
 * `POST /api/v1/oauth`: checks the sub-account's password and that it may open the calling store, and answers the
 * link's token. An unknown username, another main account's username and a wrong password cost the same scrypt work
 * and get the same 401; only a correct password of the store owner's sub-account learns it is limited to other stores
 * (403).
 */
export const requestSignInLink = async (
  deps: SignInDeps,
  input: { storeId: string; username: string; password: string },
): Promise<{ token: string; validUntil: number }> => {
  const now = deps.clock.now();
  const username = normalizeUsername(input.username);
  const store = await deps.stores.get(input.storeId);
  const userKey = userScope(store?.mainAccountId ?? 'unowned', username);
  await claimAttempts(deps, userKey, input.storeId, now);

  // Only a sub-account of the store's own main account is a candidate. Another tenant's account is treated exactly
  // like an unknown username (decoy hash, 401, counted in this tenant's scope only): a store key of one tenant can
  // neither confirm another tenant's passwords nor lock its users out.
  const found = await deps.accounts.getSub(username);
  const account =
    found && store?.mainAccountId !== undefined && store.mainAccountId === found.mainAccountId ? found : undefined;
  const matches = await verifyPassword(input.password, account?.passwordHash ?? (await decoyHash()));
  // A failure stays counted (it was counted before the hash); a success gives its attempts back.
  if (!account || !matches) throw unauthorized('Wrong username or password');
  await Promise.all([deps.throttle.clear(userKey), deps.throttle.refund(storeScope(input.storeId))]);

  if (!mayOpen(account, input.storeId)) throw forbidden('This sub-account has no access to this store');
  if (needsRehash(account.passwordHash)) {
    // Parameters were raised since this hash was made: re-hash while the password is at hand.
    await deps.accounts.setPasswordHash(username, await hashPassword(input.password), now);
  }

  const token = newSecret();
  const validUntil = now + LINK_TTL_MS;
  await deps.links.create({
    tokenHash: hashSecret(token),
    username,
    mainAccountId: account.mainAccountId,
    storeId: input.storeId,
    createdAt: now,
    validUntil,
  });
  return { token, validUntil };
};

/** The URL that carries a link token (base: the main host's public URL, without a trailing slash). */
export const signInUrl = (base: string, token: string): string =>
  `${base.replace(/\/+$/, '')}${CALLBACK_PATH}?token=${encodeURIComponent(token)}`;

export type CallbackOutcome =
  | { readonly outcome: 'signed_in'; readonly sessionId: string; readonly validUntil: number }
  | { readonly outcome: 'unknown' | 'used' | 'expired' };

/** `GET /oauth/callback?token=…`: uses the link (once) and opens a session. */
export const consumeSignInLink = async (deps: SignInDeps, token: string | undefined): Promise<CallbackOutcome> => {
  if (!token || !SECRET_SHAPE.test(token)) return { outcome: 'unknown' };
  const now = deps.clock.now();
  const used = await deps.links.consume(hashSecret(token), now);
  if (used.outcome !== 'consumed') return { outcome: used.outcome };
  // A link made before the account's sessions were revoked (a password change) opens nothing.
  const account = await deps.accounts.getSub(used.link.username);
  if (!account || revoked(account, used.link.createdAt)) return { outcome: 'expired' };
  const sessionId = newSecret();
  const validUntil = now + SESSION_TTL_MS;
  await deps.sessions.create({
    sessionHash: hashSecret(sessionId),
    username: used.link.username,
    mainAccountId: used.link.mainAccountId,
    storeId: used.link.storeId,
    createdAt: now,
    validUntil,
  });
  return { outcome: 'signed_in', sessionId, validUntil };
};

export interface BackOfficeAccess {
  readonly username: string;
  readonly mainAccount: { readonly id: string; readonly name: string };
  /** `all`: every store of the main account, now and later; otherwise the listed ones. */
  readonly access: 'all' | 'some';
  readonly stores: { storeId: string; name: string }[];
}

/**
 * What the session's sub-account may see now: read from the account at every request, so stores added to or taken
 * from it show at once. Undefined when there is no valid session (or its account is gone).
 */
export const backOfficeAccess = async (
  deps: SignInDeps,
  sessionId: string | undefined,
): Promise<BackOfficeAccess | undefined> => {
  if (!sessionId || !SECRET_SHAPE.test(sessionId)) return undefined;
  const session = await deps.sessions.get(hashSecret(sessionId), deps.clock.now());
  if (!session) return undefined;
  // Side by side: the session names its main account; nothing is answered until every check below has passed.
  const [account, main, owned] = await Promise.all([
    deps.accounts.getSub(session.username),
    deps.accounts.getMain(session.mainAccountId),
    deps.accounts.storesOf(session.mainAccountId),
  ]);
  if (account?.mainAccountId !== session.mainAccountId) return undefined;
  if (revoked(account, session.createdAt)) return undefined;
  if (!main) return undefined;
  return {
    username: account.username,
    mainAccount: { id: main.mainAccountId, name: main.name },
    access: account.stores === 'all' ? 'all' : 'some',
    stores: owned.filter((s) => mayOpen(account, s.storeId)),
  };
};

/**
 * What a console page of one store needs: whether the session's sub-account may open `storeId` now, read
 * from the account and that store at every request (the store's owner and the account's permitted stores), without
 * listing the main account's stores. `signed_out`: no valid session; `not_permitted`: a store that does not exist, of
 * another main account, or not among the account's stores (answered alike).
 */
export const consoleStoreAccess = async (
  deps: Pick<SignInDeps, 'accounts' | 'stores' | 'sessions' | 'clock'>,
  sessionId: string | undefined,
  storeId: string,
): Promise<{ storeId: string; name: string } | 'signed_out' | 'not_permitted'> => {
  if (!sessionId || !SECRET_SHAPE.test(sessionId)) return 'signed_out';
  const session = await deps.sessions.get(hashSecret(sessionId), deps.clock.now());
  if (!session) return 'signed_out';
  // Side by side: nothing is answered until every check below has passed.
  const [account, store] = await Promise.all([deps.accounts.getSub(session.username), deps.stores.get(storeId)]);
  if (account?.mainAccountId !== session.mainAccountId || revoked(account, session.createdAt)) return 'signed_out';
  if (store?.mainAccountId !== session.mainAccountId || !mayOpen(account, storeId)) return 'not_permitted';
  return { storeId: store.storeId, name: store.name };
};

/** Ends the session (the cookie is cleared by the caller). */
export const signOut = async (deps: SignInDeps, sessionId: string | undefined): Promise<void> => {
  if (sessionId && SECRET_SHAPE.test(sessionId)) await deps.sessions.delete(hashSecret(sessionId));
};
