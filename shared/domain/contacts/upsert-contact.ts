/**
 * Writing a contact, shared by the event worker and the batch import: create or update by the store's customer id,
 * and when the email or SMS consent state changed, emit `customer/marketing` in the store's format (spec "Topics").
 */

import type { Clock } from '#shared/domain/clock.ts';
import { applyCustomerData, type Customer, type CustomerWrite } from '#shared/domain/customers/model.ts';
import type { CustomerRepository } from '#shared/domain/customers/ports.ts';
import type { CustomerCreateData, CustomerUpdateData } from '#shared/domain/events/payloads/customers.ts';
import type { StoreType } from '#shared/domain/stores/model.ts';
import { consentChanged, marketingBody } from '#shared/domain/webhooks/payloads.ts';
import type { WebhookEvents } from '#shared/domain/webhooks/ports.ts';
import { PermanentError } from '#shared/errors.ts';
import { CONTACT_RECORD_MAX_BYTES, contactRecordBytes } from './model.ts';

export interface ContactWriteDeps {
  readonly customers: CustomerRepository;
  readonly webhooks: WebhookEvents;
  readonly clock: Clock;
  readonly newContactId: () => string;
}

const MAX_CONFLICT_RETRIES = 5;

/** A write may not grow the contact's exported record past its budget (one already past it may still shrink). */
const checkRecordBudget = (before: Customer | undefined, after: Customer) => {
  const bytes = contactRecordBytes(after);
  if (bytes <= CONTACT_RECORD_MAX_BYTES || (before && bytes <= contactRecordBytes(before))) return;
  throw new PermanentError(
    `the contact's exported fields (names, phone, city, tags, …) would take ${bytes} bytes; at most ` +
      `${CONTACT_RECORD_MAX_BYTES} (docs/limits.md)`,
  );
};

/**
 * A contact a public sign-up created is marked (`Customer.publicSignUp`); any write by the store's own systems (an
 * event with the store key, an import) removes the mark: the store knows the address now.
 */
const withSignUpMark = (write: CustomerWrite, publicKey: boolean): CustomerWrite => {
  const { publicSignUp: _, ...customer } = write.customer;
  return { ...write, customer: publicKey ? { ...customer, publicSignUp: true } : customer };
};

export const upsertContact = async (
  deps: ContactWriteDeps,
  /** `publicKey`: the write came with the publishable key (a sign-up): the contact is marked `publicSignUp`. */
  source: { storeId: string; storeType: StoreType; eventId: string; publicKey?: boolean },
  data: CustomerCreateData | CustomerUpdateData,
  /**
   * Told the contact as it is about to be saved, before the save (as `customer/marketing` is): a webhook that
   * announces the write is emitted again when a stop between the two makes the event come back.
   */
  beforeSave?: (write: CustomerWrite) => Promise<void>,
  /** Service-held facts written with the data (a sign-up's confirmation state), which no event payload carries. */
  held: Pick<Customer, 'emailConfirmation'> = {},
): Promise<CustomerWrite> => {
  const { storeId } = source;
  for (let tries = 1; ; tries++) {
    const before = await deps.customers.get(storeId, String(data.id));
    const marked = withSignUpMark(
      applyCustomerData(before, data, { storeId, newId: deps.newContactId, now: deps.clock.now() }),
      source.publicKey === true,
    );
    const write = held.emailConfirmation
      ? { ...marked, customer: { ...marked.customer, emailConfirmation: held.emailConfirmation } }
      : marked;
    checkRecordBudget(before, write.customer);
    // The webhook goes before the contact is saved: a process stopped between the two leaves the contact unchanged, so
    // the redelivered event finds the consent change again and emits again. The delivery's id comes from the event
    // and the subscription, so the repeat finds the same delivery and queues it again (still pending) or does nothing
    // (already handled): at least once, never a second delivery. Saved first, the repeat would see no change and a
    // delivery recorded but not yet queued would wait forever.
    if (consentChanged(before, write.customer)) {
      const nowSeconds = Math.floor(deps.clock.now() / 1000);
      await deps.webhooks.emit(
        storeId,
        'customer/marketing',
        marketingBody(write.customer, source.storeType, nowSeconds),
        `marketing#${source.eventId}`,
      );
    }
    await beforeSave?.(write);
    try {
      await deps.customers.save(write.customer, before?.revision ?? 0);
    } catch (error) {
      // Another writer got there first: re-read and apply again (a consent change still made emits the same event id).
      if (error instanceof Error && error.name === 'RevisionConflict' && tries < MAX_CONFLICT_RETRIES) continue;
      throw error;
    }
    return write;
  }
};
