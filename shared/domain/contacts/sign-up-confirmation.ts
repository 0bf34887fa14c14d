/**
 * Double opt-in of sign-ups through the publishable key (docs/events.md, "Publishable keys"). A public key is in every
 * storefront page, so a sign-up through it may name anyone's address: the email consent it gives is stored
 * `not_subscribed` with a pending confirmation (`Customer.emailConfirmation`), and one confirmation email goes to the
 * address, bounded per address and per store. The owner's confirmation (a signed, expiring link on the sending host)
 * sets the consent `subscribed` and starts the subscription welcome; nothing marketing mails the address before.
 */
import type { Clock } from '#shared/domain/clock.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import type { CustomerRepository } from '#shared/domain/customers/ports.ts';
import { escapeHtml } from '#shared/domain/email/html-escape.ts';
import { type Address, EMAIL_TAGS, SIGN_UP_CONFIRMATION_KIND } from '#shared/domain/email/model.ts';
import type { Mailer, SenderRepository } from '#shared/domain/email/ports.ts';
import { signToken, verifyToken } from '#shared/domain/email/signed-token.ts';
import type { FlowTriggers } from '#shared/domain/flows/ports.ts';
import type { FlowTrigger, TriggerContact } from '#shared/domain/flows/trigger.ts';
import type { StoreType } from '#shared/domain/stores/model.ts';
import type { WebhookEvents } from '#shared/domain/webhooks/ports.ts';
import type { ContactsByEmail } from './ports.ts';
import { upsertContact } from './upsert-contact.ts';

/** How long a confirmation link works. */
export const CONFIRM_LINK_TTL_SECONDS = 7 * 86_400;
/** At most this many confirmation emails to one address of a store per window (a repeat sign-up sends none). */
export const CONFIRMATIONS_PER_ADDRESS = { limit: 1, windowSeconds: 86_400 } as const;
/** At most this many confirmation emails from one store per window (a flood of sign-ups sends no more). */
export const CONFIRMATIONS_PER_STORE = { limit: 200, windowSeconds: 3_600 } as const;
/** The local part of the confirmation email's from address, on the store's verified sending domain. */
export const CONFIRM_FROM_LOCAL_PART = 'no-reply';

export interface ConfirmClaim {
  readonly storeId: string;
  /** Lower-cased. */
  readonly email: string;
  /** Epoch seconds after which the link no longer confirms. */
  readonly expiresAt: number;
}

export const signConfirmToken = (claim: ConfirmClaim, secret: Buffer): string =>
  signToken({ s: claim.storeId, e: claim.email.toLowerCase(), x: claim.expiresAt }, secret);

/** The claim of an intact token (expired or not), or `undefined` for a malformed, altered or foreign one. */
export const verifyConfirmToken = (token: string, secret: Buffer): ConfirmClaim | undefined => {
  const parsed = verifyToken(token, secret);
  if (!parsed) return undefined;
  const { s, e, x } = parsed;
  if (typeof s !== 'string' || typeof e !== 'string' || typeof x !== 'number') return undefined;
  return { storeId: s, email: e, expiresAt: x };
};

export const isExpired = (claim: ConfirmClaim, nowMs: number): boolean => nowMs / 1000 > claim.expiresAt;

/** Builds and reads confirmation links (`{sending url}/confirm/{token}`). */
export interface ConfirmLinks {
  urlFor(claim: ConfirmClaim): Promise<string>;
  verify(token: string): Promise<ConfirmClaim | undefined>;
}

/** Counters of fixed windows shared by every instance. */
export interface WindowCounters {
  /** Counts one against `limit` in the window of `windowSeconds` holding `nowMs`; false (nothing counted) when full. */
  take(key: string, nowMs: number, windowSeconds: number, limit: number): Promise<boolean>;
}

export interface RequestConfirmationDeps {
  readonly mailer: Pick<Mailer, 'send'>;
  readonly senders: Pick<SenderRepository, 'list'>;
  readonly stores: { get(storeId: string): Promise<{ readonly name: string } | undefined> };
  readonly links: ConfirmLinks;
  readonly counters: WindowCounters;
  readonly clock: Clock;
}

/** What asking for a confirmation did: `sent`, or why no email went. */
export type ConfirmationRequest = 'sent' | 'address_limit' | 'store_limit' | 'no_sender' | 'no_store';

/** The confirmation email (plain words, the store's name escaped, the link the only one in it). */
export const confirmationEmail = (storeName: string, url: string): { subject: string; html: string; text: string } => {
  const subject = `Confirm your subscription to ${storeName}`.replace(/[\r\n]+/g, ' ').slice(0, 200);
  const name = escapeHtml(storeName);
  const link = escapeHtml(url);
  const days = CONFIRM_LINK_TTL_SECONDS / 86_400;
  return {
    subject,
    html: `<p>Someone, hopefully you, signed this address up for email from ${name}.</p>
<p><a href="${link}">Confirm your subscription</a></p>
<p>The link works for ${days} days. If you did not sign up, ignore this email: you will get nothing more from us.</p>`,
    text: `Someone, hopefully you, signed this address up for email from ${storeName}.

Confirm your subscription: ${url}

The link works for ${days} days. If you did not sign up, ignore this email: you will get nothing more from us.`,
  };
};

/**
 * Sends the one confirmation email of a public sign-up, from the store's first verified sending domain under the
 * store's name, within the per-address and per-store bounds (the address's bound is taken first, so repeats of one
 * address do not use the store's). Without a verified domain nothing is sent: the contact stays pending.
 */
export const requestConfirmation = async (
  deps: RequestConfirmationDeps,
  request: { readonly storeId: string; readonly email: string },
): Promise<ConfirmationRequest> => {
  const email = request.email.toLowerCase();
  const { storeId } = request;
  const [store, senders] = await Promise.all([deps.stores.get(storeId), deps.senders.list(storeId)]);
  if (!store) return 'no_store';
  const domain = senders.find((sender) => sender.status === 'verified')?.domain;
  if (!domain) return 'no_sender';
  const now = deps.clock.now();
  const { limit: perAddress, windowSeconds: addressWindow } = CONFIRMATIONS_PER_ADDRESS;
  if (!(await deps.counters.take(`confirm#${storeId}#${email}`, now, addressWindow, perAddress))) {
    return 'address_limit';
  }
  const { limit: perStore, windowSeconds: storeWindow } = CONFIRMATIONS_PER_STORE;
  if (!(await deps.counters.take(`confirm#${storeId}`, now, storeWindow, perStore))) return 'store_limit';
  const url = await deps.links.urlFor({
    storeId,
    email,
    expiresAt: Math.floor(now / 1000) + CONFIRM_LINK_TTL_SECONDS,
  });
  const from: Address = { email: `${CONFIRM_FROM_LOCAL_PART}@${domain}`, name: store.name };
  // Not recorded among the store's sent messages and tagged with its kind alone: SES's reports of it are acknowledged
  // and counted against no store, stats and sending guard included (an unconfirmed address is not the store's list).
  await deps.mailer.send({
    from,
    to: { email },
    ...confirmationEmail(store.name, url),
    headers: {},
    tags: { [EMAIL_TAGS.kind]: SIGN_UP_CONFIRMATION_KIND },
  });
  return 'sent';
};

export interface ConfirmDeps {
  readonly customers: CustomerRepository;
  readonly contactsByEmail: ContactsByEmail;
  readonly webhooks: WebhookEvents;
  readonly triggers: FlowTriggers;
  readonly clock: Clock;
}

/** Awaiting its owner's confirmation: asked, not confirmed, and not unsubscribed since. */
export const isPendingConfirmation = (customer: Customer): boolean =>
  customer.emailConfirmation !== undefined &&
  customer.emailConfirmation.confirmedAt === undefined &&
  customer.emailConsent?.state !== 'unsubscribed';

/** `confirmed`: contacts this call confirmed; `alreadyConfirmed`: contacts of the address confirmed before. */
export interface ConfirmOutcome {
  readonly confirmed: number;
  readonly alreadyConfirmed: number;
  /** The customer ids (`originId`) this call confirmed: their segments are evaluated again by the caller. */
  readonly customerIds: readonly string[];
}

/**
 * The owner of the address confirmed (a valid, unexpired link): every contact of the store with that address awaiting
 * confirmation gets its email consent `subscribed` (→ `customer/marketing`), the confirmation time, and loses the
 * public sign-up mark (its address is confirmed, so flows started from the publishable key may mail it); then the
 * subscription welcome is fired for it, as a store-key sign-up fires it. A repeat finds nothing pending and changes
 * nothing (its welcome triggers are the same ids: fired once).
 */
export const confirmSignUp = async (
  deps: ConfirmDeps,
  claim: ConfirmClaim,
  store: { readonly type: StoreType },
): Promise<ConfirmOutcome> => {
  const { storeId } = claim;
  const now = deps.clock.now();
  const found = await deps.contactsByEmail.find(storeId, claim.email);
  const pending = found.filter(isPendingConfirmation);
  const alreadyConfirmed = found.filter((c) => c.emailConfirmation?.confirmedAt !== undefined).length;
  const writes = {
    ...deps,
    newContactId: (): string => {
      throw new Error('a confirmation never creates a contact');
    },
  };
  const confirmed: Customer[] = found.filter((c) => c.emailConfirmation?.confirmedAt !== undefined);
  for (const contact of pending) {
    const requestedAt = contact.emailConfirmation?.requestedAt ?? 0;
    const { customer } = await upsertContact(
      writes,
      { storeId, storeType: store.type, eventId: causeOf(contact) },
      { id: contact.originId, email_marketing_consent: { state: 'subscribed', updatedAt: Math.floor(now / 1000) } },
      undefined,
      { emailConfirmation: { requestedAt, confirmedAt: now } },
    );
    confirmed.push(customer);
  }
  // Fired after the save, so the welcome sees the consent; for every confirmed contact of the address, by an id per
  // contact and request, so a repeat after a crash fires what was lost and nothing twice.
  for (const contact of confirmed) await deps.triggers.fire(welcomeTrigger(storeId, contact, now));
  return { confirmed: pending.length, alreadyConfirmed, customerIds: pending.map((c) => c.originId) };
};

const causeOf = (contact: Customer) => `confirm#${contact.originId}#${contact.emailConfirmation?.requestedAt ?? 0}`;

const welcomeTrigger = (storeId: string, contact: Customer, now: number): FlowTrigger => ({
  id: `${causeOf(contact)}#subscription_welcome`,
  storeId,
  kind: 'subscription_welcome',
  subject: { type: 'customer', id: contact.originId },
  contact: contactOf(contact),
  cause: { endpoint: 'customers/create', sourceId: causeOf(contact) },
  context: {
    customer: {
      id: contact.id,
      originId: contact.originId,
      email: contact.email,
      phone: contact.phone,
      firstName: contact.firstName,
      lastName: contact.lastName,
      countryCode: contact.countryCode,
    },
  },
  at: now,
});

const contactOf = (contact: Customer): TriggerContact => ({
  customerId: contact.originId,
  ...(contact.email ? { email: contact.email } : {}),
  ...(contact.phone ? { phone: contact.phone } : {}),
});
