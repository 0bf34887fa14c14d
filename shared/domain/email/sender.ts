/**
 * A store's sending domain ("sender") and its DKIM records. A domain belongs to one store; see `senders.ts` for the
 * use cases.
 */
import { domainToASCII } from 'node:url';

export type SenderStatus = 'pending' | 'verified' | 'failed';

export interface Sender {
  readonly storeId: string;
  /** Lower-case, ASCII (IDNA) form. */
  readonly domain: string;
  readonly status: SenderStatus;
  /** Easy DKIM tokens: each is published as `<token>._domainkey.<domain>` CNAME `<token>.dkim.amazonses.com`. */
  readonly dkimTokens: readonly string[];
  /** Epoch milliseconds. */
  readonly createdAt: number;
  /** When the status was last read from the mail engine (epoch milliseconds). */
  readonly checkedAt: number;
  readonly verifiedAt?: number;
}

/** The identity as the mail engine reports it. */
export interface IdentityState {
  readonly status: SenderStatus;
  readonly dkimTokens: readonly string[];
  /** The identity existed before this call created it (SES `AlreadyExistsException`). */
  readonly preexisting?: boolean;
  /**
   * The other Storeflow stage (`test`, `prod`, …) that created the preexisting identity in this SES account, from its
   * stage tag: SES identities are per account and region, so two stages there cannot both send for one domain.
   */
  readonly otherStage?: string;
}

export interface DnsRecord {
  readonly type: 'CNAME';
  readonly name: string;
  readonly value: string;
}

/** What the senders routes answer for one domain. */
export interface SenderView {
  readonly domain: string;
  readonly status: SenderStatus;
  /** The records to publish in the domain's DNS (the three Easy DKIM CNAMEs). */
  readonly dnsRecords: readonly DnsRecord[];
  /** Epoch seconds. */
  readonly createdAt: number;
  readonly verifiedAt?: number;
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** The domain in its stored form, or `undefined` when it is not a registrable host name. */
export const normalizeDomain = (input: string): string | undefined => {
  const trimmed = input.trim().replace(/\.$/, '');
  if (!trimmed || trimmed.length > 253 || /[\s/@:]/.test(trimmed)) return undefined;
  const ascii = domainToASCII(trimmed.toLowerCase());
  if (!ascii || ascii.length > 253) return undefined;
  const labels = ascii.split('.');
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label))) return undefined;
  // The top-level label is never all digits (that would be an IP address).
  if (/^[0-9]+$/.test(labels.at(-1) ?? '')) return undefined;
  return ascii;
};

export const dnsRecordsOf = (domain: string, tokens: readonly string[]): DnsRecord[] =>
  tokens.map((token) => ({
    type: 'CNAME',
    name: `${token}._domainkey.${domain}`,
    value: `${token}.dkim.amazonses.com`,
  }));

export const senderView = (sender: Sender): SenderView => ({
  domain: sender.domain,
  status: sender.status,
  dnsRecords: dnsRecordsOf(sender.domain, sender.dkimTokens),
  createdAt: Math.floor(sender.createdAt / 1000),
  ...(sender.verifiedAt !== undefined ? { verifiedAt: Math.floor(sender.verifiedAt / 1000) } : {}),
});

/**
 * The domains above `domain` that could be a registered sending domain (at least two labels): `a.b.shop.example` →
 * `b.shop.example`, `shop.example`. SES treats a verified parent as covering its subdomains, so a domain and its
 * parents and subdomains belong to one store at most.
 */
export const parentDomains = (domain: string): string[] => {
  const labels = domain.split('.');
  return labels.slice(1, -1).map((_, i) => labels.slice(i + 1).join('.'));
};

/** An unverified claim on a domain lapses after this long: another store may then register it. */
export const UNVERIFIED_CLAIM_MS = 72 * 3600_000;
