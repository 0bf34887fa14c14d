/**
 * A recipient leaves a store's mailings: the one-click unsubscribe (RFC 8058), SES list management, or a complaint.
 * The store's contacts with that address get their email consent set to unsubscribed (→ `customer/marketing`), the
 * store is told with `list_unsubscribe` on `transmission/callback`, and the address is suppressed for the store.
 *
 * Idempotent and crash-safe without transactions: every webhook has a deterministic event id (a repeat emits nothing
 * new), and the suppression is written last, so it doubles as the marker that the whole unsubscribe was done. A retry
 * after a crash finds no suppression yet and re-emits whatever the first attempt may not have sent.
 */

import type { Clock } from '#shared/domain/clock.ts';
import type { ContactsByEmail } from '#shared/domain/contacts/ports.ts';
import { upsertContact } from '#shared/domain/contacts/upsert-contact.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import type { CustomerRepository } from '#shared/domain/customers/ports.ts';
import type { CustomerUpdateData } from '#shared/domain/events/payloads/customers.ts';
import type { Store } from '#shared/domain/stores/model.ts';
import type { StoreRepository } from '#shared/domain/stores/ports.ts';
import { marketingBody } from '#shared/domain/webhooks/payloads.ts';
import type { WebhookEvents } from '#shared/domain/webhooks/ports.ts';
import type { SuppressionReason } from './model.ts';
import type { Suppressions } from './ports.ts';

export interface UnsubscribeDeps {
  readonly customers: CustomerRepository;
  readonly contactsByEmail: ContactsByEmail;
  readonly stores: Pick<StoreRepository, 'get'>;
  readonly suppressions: Suppressions;
  readonly webhooks: WebhookEvents;
  readonly clock: Clock;
}

export interface UnsubscribeRequest {
  readonly storeId: string;
  readonly email: string;
  /** The batch id or flow run id of the message it came from (the spec's `transmission_id`). */
  readonly transmissionId: string;
  readonly reason: Extract<SuppressionReason, 'unsubscribed' | 'complaint'>;
}

export interface UnsubscribeOutcome {
  /** False when the address was already suppressed for the store before (a repeat). */
  readonly firstTime: boolean;
  /** Contacts whose email consent this call changed to unsubscribed. */
  readonly contactsChanged: number;
}

/** Event id of the `list_unsubscribe` callback: one per recipient and transmission, whatever the channel. */
export const listUnsubscribeEventId = (transmissionId: string, email: string) =>
  `list_unsubscribe#${transmissionId}#${email.toLowerCase()}`;

/** The spec's `list_unsubscribe` callback body. */
export const listUnsubscribeBody = (rcptTo: string, transmissionId: string) => ({
  eventType: 'list_unsubscribe',
  eventData: { rcpt_to: rcptTo, transmission_id: transmissionId },
});

/** Only existing contacts are written here: a new contact id is never needed. */
const contactWrites = (deps: UnsubscribeDeps) => ({
  ...deps,
  newContactId: (): string => {
    throw new Error('unsubscribe never creates a contact');
  },
});

const isUnsubscribed = (customer: Customer) => customer.emailConsent?.state === 'unsubscribed';

/**
 * Never called for a store that does not exist (the claim is signed by the service): such a claim does nothing.
 * `store`: the request's store when the caller has already read it (it is read here otherwise).
 */
export const unsubscribe = async (
  deps: UnsubscribeDeps,
  request: UnsubscribeRequest,
  store?: Pick<Store, 'type'>,
): Promise<UnsubscribeOutcome> => {
  const email = request.email.toLowerCase();
  const { storeId, transmissionId } = request;
  store ??= await deps.stores.get(storeId);
  if (!store) return { firstTime: false, contactsChanged: 0 };
  const alreadySuppressed = (await deps.suppressions.suppressedAmong(storeId, [email])).has(email);
  const nowSeconds = Math.floor(deps.clock.now() / 1000);

  let contactsChanged = 0;
  for (const found of await deps.contactsByEmail.find(storeId, email)) {
    const eventId = `unsubscribe#${transmissionId}#${email}#${found.originId}`;
    if (!isUnsubscribed(found)) {
      // The same write and `customer/marketing` emission as an event that changes consent (the ingest worker's).
      const { customer } = await upsertContact(contactWrites(deps), { storeId, storeType: store.type, eventId }, {
        id: found.originId,
        email_marketing_consent: { state: 'unsubscribed', updatedAt: nowSeconds },
      } as CustomerUpdateData);
      if (isUnsubscribed(customer)) contactsChanged++;
    } else if (!alreadySuppressed) {
      // Unsubscribed but not suppressed: an earlier attempt may have saved the consent and stopped before its
      // webhook. Emitting under the same id sends it once if it was lost and nothing if it was not.
      await deps.webhooks.emit(
        storeId,
        'customer/marketing',
        marketingBody(found, store.type, nowSeconds),
        `marketing#${eventId}`,
      );
    }
  }

  await deps.webhooks.emit(
    storeId,
    'transmission/callback',
    listUnsubscribeBody(email, transmissionId),
    listUnsubscribeEventId(transmissionId, email),
  );
  await deps.suppressions.suppress({ storeId, email, reason: request.reason, at: deps.clock.now(), transmissionId });
  return { firstTime: !alreadySuppressed, contactsChanged };
};
