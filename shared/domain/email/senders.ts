/**
 * Sending domains ("senders"): the spec wants the sender domain configured in the store before sending, and the from
 * domain DKIM-signed. A store registers a domain; the mail engine creates an identity with Easy DKIM and answers three
 * tokens, published as CNAME records; once DNS resolves them the identity is verified and the store may send from any
 * address at that domain. An identity is account-wide in SES, so one domain belongs to one store.
 */
import * as v from 'valibot';
import type { Clock } from '#shared/domain/clock.ts';
import { checkedByUseCase, specMessage } from '#shared/domain/validation.ts';
import { conflict, notFound, validationError } from '#shared/errors.ts';
import type { SenderRepository, SendingIdentities } from './ports.ts';
import {
  type IdentityState,
  normalizeDomain,
  parentDomains,
  type Sender,
  type SenderStatus,
  type SenderView,
  senderView,
  UNVERIFIED_CLAIM_MS,
} from './sender.ts';

export interface SenderDeps {
  readonly senders: SenderRepository;
  readonly identities: SendingIdentities;
  readonly clock: Clock;
}

/** A pending domain's status is read again from the mail engine at most this often when sending (DNS is slow anyway). */
export const RECHECK_PENDING_MS = 60_000;

const domainFrom = (input: unknown, what: string): string => {
  if (typeof input !== 'string' || input.trim() === '') throw validationError(`${what} is required`);
  const domain = normalizeDomain(input);
  if (!domain) throw validationError(`${what} must be a domain name such as mail.example.com`);
  return domain;
};

const missing = (domain: string) => notFound(`Sender domain ${domain} is not registered in this store`);

/** The sender with the identity's current state (the record is updated when it changed). */
const refreshed = async (deps: SenderDeps, sender: Sender): Promise<Sender> => {
  const now = deps.clock.now();
  const state = await deps.identities.get(sender.domain);
  const status: SenderStatus = state?.status ?? 'failed';
  const next: Sender = {
    ...sender,
    status,
    dkimTokens: state?.dkimTokens.length ? state.dkimTokens : sender.dkimTokens,
    checkedAt: now,
    ...(status === 'verified' ? { verifiedAt: sender.verifiedAt ?? now } : {}),
  };
  await deps.senders.put(next);
  if (status === 'verified' && sender.status !== 'verified')
    await deps.senders.markVerified(sender.storeId, sender.domain);
  return next;
};

/** `POST /api/v1/senders` `{domain}`: registers the domain (a repeat by the same store answers it again). */
/**
 * A `POST /senders` body, read by the handler and described by the API document: `{domain}`, handed to the use case in
 * its stored form (other keys are ignored).
 */
export const SenderRequest = v.pipe(
  v.object(
    {
      domain: checkedByUseCase({
        type: 'string',
        minLength: 1,
        maxLength: 253,
        description:
          'A host name of at least two labels, e.g. `mail.example.com` (a trailing dot and surrounding spaces are ' +
          'ignored, international names are stored in their ASCII form). Exactly this domain: a subdomain is ' +
          'registered on its own.',
        examples: ['mail.shop.example'],
      }),
    },
    specMessage('body must be a JSON object'),
  ),
  v.transform(({ domain }) => ({ domain: domainFrom(domain, 'domain') })),
);

export const registerSender = async (
  deps: SenderDeps,
  storeId: string,
  { domain }: { readonly domain: string },
): Promise<SenderView> => {
  const known = await deps.senders.get(storeId, domain);
  if (known && known.dkimTokens.length > 0) return senderView(known);
  const now = deps.clock.now();
  let lapsedFrom: string | undefined;
  if (!known) {
    const claim = await deps.senders.claim(
      { storeId, domain, status: 'pending', dkimTokens: [], createdAt: now, checkedAt: now },
      now - UNVERIFIED_CLAIM_MS,
    );
    if (!claim.claimed) {
      throw conflict(`The domain ${domain} is registered by another store; a domain can send for one store only`);
    }
    lapsedFrom = claim.lapsedFrom;
    // Checked after the claim, so of two stores racing for a parent and its subdomain at least one sees the other.
    const nearby = await deps.senders.heldNearby(storeId, domain, parentDomains(domain));
    if (nearby) {
      await deps.senders.release(storeId, domain);
      throw conflict(
        `The domain ${domain} is related to ${nearby}, registered by another store: a domain, its parents and its ` +
          'subdomains send for one store only',
      );
    }
    // The lapsed claim's identity (and its DKIM tokens, which the squatter saw) goes; this store gets fresh ones.
    if (lapsedFrom) await deps.identities.delete(domain);
  }
  let state: IdentityState;
  try {
    // Idempotent: an identity that already exists (an earlier attempt got this far) is read instead.
    state = await deps.identities.create(domain);
  } catch (error) {
    // Nothing half-made stays behind: the store can simply register again.
    if (!known) await deps.senders.release(storeId, domain);
    throw error;
  }
  if (state.preexisting && !known && !lapsedFrom) {
    // Not an earlier attempt of this store (that would have left its claim): the identity belongs to someone else in
    // the SES account (the operator, another application). Adopting it would let this store send as, and delete, it.
    await deps.senders.release(storeId, domain);
    if (state.otherStage) {
      throw conflict(
        `The domain ${domain} is registered by Storeflow's ${state.otherStage} deployment in the same SES account: ` +
          'SES identities are per account and region, so it can send for one deployment only',
      );
    }
    throw conflict(
      `The domain ${domain} is already an SES identity of this account outside Storeflow; it cannot be registered by a store`,
    );
  }
  const sender: Sender = {
    storeId,
    domain,
    status: state.status,
    dkimTokens: state.dkimTokens,
    createdAt: known?.createdAt ?? now,
    checkedAt: now,
    ...(state.status === 'verified' ? { verifiedAt: now } : {}),
  };
  await deps.senders.put(sender);
  if (sender.status === 'verified') await deps.senders.markVerified(storeId, domain);
  return senderView(sender);
};

export const listSenders = async (deps: SenderDeps, storeId: string) => {
  const senders = await deps.senders.list(storeId);
  return { list: senders.map(senderView), total: senders.length };
};

/** `GET /api/v1/senders/{domain}`: the domain with its status read afresh from the mail engine. */
export const getSender = async (deps: SenderDeps, storeId: string, rawDomain: unknown): Promise<SenderView> => {
  const domain = domainFrom(rawDomain, 'domain');
  const sender = await deps.senders.get(storeId, domain);
  if (!sender) throw missing(domain);
  return senderView(await refreshed(deps, sender));
};

/** `DELETE /api/v1/senders/{domain}`: removes the identity and frees the domain. */
export const deleteSender = async (deps: SenderDeps, storeId: string, rawDomain: unknown): Promise<boolean> => {
  const domain = domainFrom(rawDomain, 'domain');
  const sender = await deps.senders.get(storeId, domain);
  if (!sender) throw missing(domain);
  await deps.identities.delete(domain);
  await deps.senders.release(storeId, domain);
  return true;
};

/**
 * The check before a bulk send: the from address's domain is registered by the store and verified. A pending domain is
 * read again from the mail engine (at most once a minute), so a store that just published its DNS can send at once.
 */
export const requireVerifiedSender = async (deps: SenderDeps, storeId: string, fromEmail: string): Promise<Sender> => {
  const rawDomain = fromEmail.slice(fromEmail.lastIndexOf('@') + 1);
  const domain = normalizeDomain(rawDomain);
  const sender = domain ? await deps.senders.get(storeId, domain) : undefined;
  if (!domain || !sender) {
    throw validationError(
      `from.email domain ${domain ?? rawDomain} is not a sending domain of this store; register it with POST /api/v1/senders first`,
    );
  }
  let current = sender;
  if (current.status !== 'verified' && deps.clock.now() - current.checkedAt >= RECHECK_PENDING_MS) {
    current = await refreshed(deps, current);
  }
  if (current.status === 'verified') return current;
  throw conflict(
    current.status === 'pending'
      ? `from.email domain ${domain} is not verified yet: publish its DKIM records (GET /api/v1/senders/${domain}) and retry once DNS has them`
      : `from.email domain ${domain} failed DKIM verification: check its DKIM records (GET /api/v1/senders/${domain})`,
  );
};
