/**
 * In-memory contact search: the lookup entries the customer repository writes (`lookupTerms` at each save), kept
 * apart from the contacts so a test can leave an entry behind a contact changed since, as a lagging index would.
 */
import { lookupTerms } from '#shared/domain/contacts/contact-search.ts';
import type { ContactPage, ContactSearchIndex } from '#shared/domain/contacts/ports.ts';
import type { Customer } from '#shared/domain/customers/model.ts';

export const memoryContactSearch = () => {
  const contacts = new Map<string, Customer>();
  /** `storeId`, `kind` (`phone`, `name`), term, origin id. */
  const entries: { storeId: string; kind: 'phone' | 'name'; term: string; originId: string }[] = [];
  const keyOf = (storeId: string, originId: string) => `${storeId}\n${originId}`;

  const page = (
    storeId: string,
    matches: (entry: (typeof entries)[number]) => boolean,
    { limit, cursor }: { limit: number; cursor?: string },
  ): ContactPage => {
    const found = entries
      .filter((e) => e.storeId === storeId && matches(e))
      .sort((a, b) => `${a.term}#${a.originId}`.localeCompare(`${b.term}#${b.originId}`));
    const start = cursor ? Number(cursor) : 0;
    const slice = found.slice(start, start + limit);
    const items = slice.flatMap((e) => contacts.get(keyOf(storeId, e.originId)) ?? []);
    return start + limit < found.length ? { items, nextCursor: String(start + limit) } : { items };
  };

  const index: ContactSearchIndex = {
    byPhone: async (storeId, phone, p) => page(storeId, (e) => e.kind === 'phone' && e.term === phone, p),
    byNamePrefix: async (storeId, prefix, p) => page(storeId, (e) => e.kind === 'name' && e.term.startsWith(prefix), p),
    indexStore: async () => contacts.size,
  };

  return {
    index,
    contacts,
    /** Saves the contact and its lookup entries, as the repository does. */
    save(contact: Customer) {
      contacts.set(keyOf(contact.storeId, contact.originId), contact);
      for (let i = entries.length - 1; i >= 0; i--) {
        const e = entries[i];
        if (e && e.storeId === contact.storeId && e.originId === contact.originId) entries.splice(i, 1);
      }
      const terms = lookupTerms(contact);
      if (terms.phone)
        entries.push({ storeId: contact.storeId, kind: 'phone', term: terms.phone, originId: contact.originId });
      for (const term of terms.names)
        entries.push({ storeId: contact.storeId, kind: 'name', term, originId: contact.originId });
    },
    /** Changes the contact without touching its entries (an index that has not caught up). */
    changeOnly(contact: Customer) {
      contacts.set(keyOf(contact.storeId, contact.originId), contact);
    },
  };
};

export const contact = (storeId: string, originId: string, fields: Partial<Customer> = {}): Customer => ({
  storeId,
  id: `ct_${originId}`,
  originId,
  platformTags: [],
  categoryTags: [],
  attributes: {},
  createdAt: 1_700_000_000,
  updatedAt: 1_700_000_000_000,
  revision: 1,
  ...fields,
});
