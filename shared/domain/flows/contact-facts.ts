/** Who a trigger or a run is about, and whether the flow's consent requirement lets it mail them. */
import type { ContactsByEmail } from '#shared/domain/contacts/ports.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import type { CustomerRepository } from '#shared/domain/customers/ports.ts';
import type { ConsentRequirement } from './flow.ts';
import type { TriggerContact } from './trigger.ts';

/** Reads a contact by the store's customer id or by address. */
export interface ContactLookup {
  readonly customers: Pick<CustomerRepository, 'get'>;
  readonly contacts: ContactsByEmail;
}

export const normalEmail = (email: string | undefined): string | undefined => {
  const trimmed = email?.trim().toLowerCase();
  return trimmed ? trimmed : undefined;
};

/** The contact the trigger is about: by the store's customer id first, else the most recently changed with the address. */
export const findContact = async (
  deps: ContactLookup,
  storeId: string,
  who: TriggerContact,
  email: string | undefined,
): Promise<Customer | undefined> => {
  if (who.customerId) {
    const byId = await deps.customers.get(storeId, who.customerId);
    if (byId && (!email || normalEmail(byId.email) === email)) return byId;
  }
  if (!email) return undefined;
  const found = await deps.contacts.find(storeId, email);
  return found.sort((a, b) => b.updatedAt - a.updatedAt)[0];
};

/** Whether the flow's consent requirement lets it mail this contact (suppression is checked apart). */
export const consentAllows = (required: ConsentRequirement, contact: Customer | undefined): boolean => {
  const state = contact?.emailConsent?.state;
  if (required === 'transactional') return true;
  if (required === 'not_unsubscribed') return state !== 'unsubscribed';
  return state === 'subscribed';
};
