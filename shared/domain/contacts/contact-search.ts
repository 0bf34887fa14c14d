/**
 * Finding a store's contacts by phone or by name (the console's contact page), through lookup entries
 * written with each contact (docs/contacts.md "Search"): never a scan of the store's contacts, however many it has.
 *
 * - **Phone**: spaces, dots, dashes, slashes and parentheses are dropped and a leading `+` kept, so
 *   `+33 6 12-34-56-78` and `+33612345678` are the same number; 4 to 15 digits. Matched exactly: `0612345678`,
 *   `+33612345678` and `0033612345678` are three different numbers.
 * - **Name**: compared without case or accents (`Zoë` is `zoe`, `Straße` is `strasse`), apostrophes dropped
 *   (`O'Brien` is `obrien`), any other run of non-letters a single space (`Jean-Luc` is `jean luc`). A search matches
 *   a contact whose `first last` or `last first` starts with it: the start of the first name, of the last name, or of
 *   the whole name in either order. A word inside a name (`ann` in `Mary Ann`) does not match.
 */
import type { Customer } from '#shared/domain/customers/model.ts';
import { normalEmail } from '#shared/domain/flows/contact-facts.ts';
import { validationError } from '#shared/errors.ts';
import type { ContactPage, ContactSearchIndex } from './ports.ts';

/** Contacts per page of results. */
export const SEARCH_PAGE = 20;
/** The longest search accepted (an email address's limit). */
export const MAX_SEARCH_CHARS = 254;
/** Name terms are indexed and compared up to this many characters. */
export const MAX_NAME_TERM_CHARS = 100;
const PHONE_DIGITS = { min: 4, max: 15 } as const;
const PHONE_CHARACTERS = /^\+?[\d\s().\-/]+$/;

/** `+33 6 12-34 (56) 78` → `+33612345678`; undefined for something that is not a phone number. */
export const normalPhone = (raw: string): string | undefined => {
  const trimmed = raw.trim();
  if (!PHONE_CHARACTERS.test(trimmed)) return undefined;
  const digits = trimmed.replace(/\D/g, '');
  if (digits.length < PHONE_DIGITS.min || digits.length > PHONE_DIGITS.max) return undefined;
  return `${trimmed.startsWith('+') ? '+' : ''}${digits}`;
};

/** Letters NFKD does not take apart. */
const FOLDED: Readonly<Record<string, string>> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  đ: 'd',
  ð: 'd',
  ł: 'l',
  þ: 'th',
  ı: 'i',
};

/** A name as it is indexed and searched: lower case, no accents, no apostrophes, single spaces. */
export const normalName = (raw: string): string =>
  raw
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[ßæœøđðłþı]/g, (c) => FOLDED[c] ?? c)
    .replace(/['’‘`ʼ]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .slice(0, MAX_NAME_TERM_CHARS)
    .trim();

/** What a contact is found by: its normalised phone, and its name terms (`first last`, and `last first`). */
export interface LookupTerms {
  readonly phone?: string;
  readonly names: readonly string[];
}

export const lookupTerms = (contact: {
  readonly phone?: unknown;
  readonly firstName?: unknown;
  readonly lastName?: unknown;
}): LookupTerms => {
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  const first = normalName(text(contact.firstName));
  const last = normalName(text(contact.lastName));
  const names = [[first, last].filter(Boolean).join(' '), first && last ? `${last} ${first}` : '']
    .map((term) => term.slice(0, MAX_NAME_TERM_CHARS).trim())
    .filter(Boolean);
  const phone = normalPhone(text(contact.phone));
  return { ...(phone ? { phone } : {}), names: [...new Set(names)] };
};

/** What the search box asked for. */
export type ContactSearch =
  | { readonly kind: 'email'; readonly email: string }
  | { readonly kind: 'phone'; readonly phone: string }
  | { readonly kind: 'name'; readonly name: string };

const emailSearch = (raw: string): ContactSearch => {
  const email = normalEmail(raw);
  if (!email || email.length > MAX_SEARCH_CHARS || !/^[^\s@]+@[^\s@]+$/.test(email)) {
    throw validationError('email must be an email address');
  }
  return { kind: 'email', email };
};

const phoneSearch = (raw: string): ContactSearch => {
  const phone = normalPhone(raw);
  if (!phone) throw validationError('phone must be a phone number: 4 to 15 digits, with an optional leading +');
  return { kind: 'phone', phone };
};

const nameSearch = (raw: string): ContactSearch => {
  if (raw.length > MAX_NAME_TERM_CHARS) throw validationError(`name must be at most ${MAX_NAME_TERM_CHARS} characters`);
  const name = normalName(raw);
  if (!name) throw validationError('name must contain a letter or a digit');
  return { kind: 'name', name };
};

/**
 * The search of the contact page's query: `email`, `phone` or `name` as named, or `q` read as an email address when it
 * has an `@`, a phone number when it has only digits and `+ ( ) . - /` and spaces, a name otherwise. Undefined
 * without any; 400 for one that is malformed or too long.
 */
export const parseContactSearch = (query: {
  readonly q?: string | undefined;
  readonly email?: string | undefined;
  readonly phone?: string | undefined;
  readonly name?: string | undefined;
}): ContactSearch | undefined => {
  for (const [field, value] of Object.entries(query)) {
    if (value !== undefined && value.length > MAX_SEARCH_CHARS) {
      throw validationError(`${field} must be at most ${MAX_SEARCH_CHARS} characters`);
    }
  }
  if (query.email !== undefined) return emailSearch(query.email);
  if (query.phone !== undefined) return phoneSearch(query.phone);
  if (query.name !== undefined) return nameSearch(query.name);
  const q = query.q?.trim();
  if (!q) return undefined;
  if (q.includes('@')) return emailSearch(q);
  if (PHONE_CHARACTERS.test(q) && /\d/.test(q)) return phoneSearch(q);
  return nameSearch(q);
};

/** Whether the contact, as it is now, answers the search (an index entry may lag behind a contact just changed). */
export const matchesSearch = (contact: Customer, search: ContactSearch): boolean => {
  switch (search.kind) {
    case 'email':
      return contact.email?.toLowerCase() === search.email;
    case 'phone':
      return lookupTerms(contact).phone === search.phone;
    case 'name':
      return lookupTerms(contact).names.some((term) => term.startsWith(search.name));
  }
};

/**
 * One page of the store's contacts with this phone number (in customer id order) or whose name starts with this
 * name (in name order). An entry whose contact has changed since is left out, so a page may hold fewer than
 * `SEARCH_PAGE` contacts and still have a next one.
 */
export const searchContacts = async (
  index: Pick<ContactSearchIndex, 'byPhone' | 'byNamePrefix'>,
  storeId: string,
  search: Exclude<ContactSearch, { kind: 'email' }>,
  cursor?: string,
): Promise<ContactPage> => {
  const page = { limit: SEARCH_PAGE, ...(cursor ? { cursor } : {}) };
  const found =
    search.kind === 'phone'
      ? await index.byPhone(storeId, search.phone, page)
      : await index.byNamePrefix(storeId, search.name, page);
  return { ...found, items: found.items.filter((contact) => matchesSearch(contact, search)) };
};

/** What indexing a store's contacts for the search needs (`npm run admin -- store index-contacts`). */
export interface IndexContactsDeps {
  readonly stores: { get(storeId: string): Promise<unknown> };
  readonly index: Pick<ContactSearchIndex, 'indexStore'>;
}

/**
 * Writes the search's lookup entries of every contact of a store: contacts saved before the search existed are not
 * found by phone or name until then (or until they next change). Safe to run at any time, and again; answers how many
 * contacts were read.
 */
export const indexStoreContacts = async (
  deps: IndexContactsDeps,
  storeId: string,
  progress: (read: number) => void = () => {},
): Promise<number> => {
  if (!(await deps.stores.get(storeId))) throw new Error(`No store ${storeId}`);
  return deps.index.indexStore(storeId, progress);
};
