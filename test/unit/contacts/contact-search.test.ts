/**
 * The console's contact search on the pure domain with in-memory ports: how phones and names are normalised, what a
 * search box query is read as, which contacts a name prefix matches, and what the contact page shows for one match,
 * several, none, a stale index entry and a malformed search.
 */
import { describe, expect, it } from 'vitest';
import { type ContactViewDeps, contactPageView, outcomesOf } from '#shared/domain/console/contact-view.ts';
import {
  lookupTerms,
  normalName,
  normalPhone,
  parseContactSearch,
  SEARCH_PAGE,
  searchContacts,
} from '#shared/domain/contacts/contact-search.ts';
import type { ContactEmail } from '#shared/domain/email/model.ts';
import { contact, memoryContactSearch } from '#test/support/memory/contacts.ts';

const STORE = 'st_a';
const OTHER = 'st_b';

describe('normalising phone numbers', () => {
  it.each([
    ['+33 6 12 34 56 78', '+33612345678'],
    ['+33 (6) 12-34.56/78', '+33612345678'],
    ['  06 12 34 56 78 ', '0612345678'],
    ['0033612345678', '0033612345678'],
    ['1234', '1234'],
  ])('%s is %s', (raw, normal) => {
    expect(normalPhone(raw)).toBe(normal);
  });

  it.each([
    ['letters', '+33 6 12 AB 56'],
    ['a + inside', '33+612345678'],
    ['three digits', '123'],
    ['sixteen digits', '+1234567890123456'],
    ['nothing', '  '],
  ])('refuses %s', (_, raw) => {
    expect(normalPhone(raw)).toBeUndefined();
  });
});

describe('normalising names', () => {
  it.each([
    ['Zoë', 'zoe'],
    ['ÉLODIE', 'elodie'],
    ['Straße', 'strasse'],
    ["O'Brien", 'obrien'],
    ['O’Brien', 'obrien'],
    ['Jean-Luc  Picard', 'jean luc picard'],
    ['Łukasz Øster', 'lukasz oster'],
    ['  ', ''],
  ])('%s is %s', (raw, normal) => {
    expect(normalName(raw)).toBe(normal);
  });

  it('indexes `first last` and `last first`, one term for a single name, and the normalised phone', () => {
    expect(lookupTerms({ firstName: 'Ada', lastName: 'Lovelace', phone: '+44 20 7946 0000' })).toEqual({
      phone: '+442079460000',
      names: ['ada lovelace', 'lovelace ada'],
    });
    expect(lookupTerms({ lastName: 'Lovelace' })).toEqual({ names: ['lovelace'] });
    expect(lookupTerms({ firstName: 'Ada', phone: 'call me' })).toEqual({ names: ['ada'] });
    expect(lookupTerms({})).toEqual({ names: [] });
  });
});

describe('reading the search box', () => {
  it('reads an @ as an email address, phone characters as a phone number, anything else as a name', () => {
    expect(parseContactSearch({ q: ' Ada@Example.com ' })).toEqual({ kind: 'email', email: 'ada@example.com' });
    expect(parseContactSearch({ q: '+33 6 12 34 56 78' })).toEqual({ kind: 'phone', phone: '+33612345678' });
    expect(parseContactSearch({ q: 'Zoë D' })).toEqual({ kind: 'name', name: 'zoe d' });
    expect(parseContactSearch({ name: '2nd Street' })).toEqual({ kind: 'name', name: '2nd street' });
    expect(parseContactSearch({ q: '  ' })).toBeUndefined();
    expect(parseContactSearch({})).toBeUndefined();
  });

  it.each([
    [{ q: '+33 1' }, 'phone must be a phone number: 4 to 15 digits, with an optional leading +'],
    [{ phone: 'ABC' }, 'phone must be a phone number: 4 to 15 digits, with an optional leading +'],
    [{ q: 'not@an address' }, 'email must be an email address'],
    [{ q: '---' }, 'name must contain a letter or a digit'],
    [{ q: '!!!' }, 'name must contain a letter or a digit'],
    [{ q: 'x'.repeat(255) }, 'q must be at most 254 characters'],
    [{ name: 'x'.repeat(101) }, 'name must be at most 100 characters'],
  ])('refuses %j: %s', (query, message) => {
    expect(() => parseContactSearch(query)).toThrow(message);
  });
});

describe('searching a store', () => {
  const store = () => {
    const search = memoryContactSearch();
    search.save(contact(STORE, 'c1', { firstName: 'Ada', lastName: 'Lovelace', phone: '+44 20 7946 0000' }));
    search.save(contact(STORE, 'c2', { firstName: 'Adèle', lastName: 'Dupont', phone: '+442079460000' }));
    search.save(contact(STORE, 'c3', { firstName: 'Mary Ann', lastName: 'Lovell' }));
    search.save(contact(OTHER, 'c4', { firstName: 'Ada', lastName: 'Byron', phone: '+442079460000' }));
    return search;
  };
  const names = (page: { items: { originId: string }[] }) => page.items.map((c) => c.originId).sort();

  it('matches the start of the first name, the last name or the whole name, in any case and accents', async () => {
    const { index } = store();
    const find = async (name: string) => names(await searchContacts(index, STORE, { kind: 'name', name }));
    expect(await find('ade')).toEqual(['c2']);
    expect(await find('ad')).toEqual(['c1', 'c2']);
    expect(await find('love')).toEqual(['c1', 'c3']);
    expect(await find('ada l')).toEqual(['c1']);
    expect(await find('dupont ad')).toEqual(['c2']);
    // A word inside a name is not a start.
    expect(await find('ann')).toEqual([]);
    expect(await find('byron')).toEqual([]);
  });

  it('matches a phone number whole, once normalised, in the store only', async () => {
    const { index } = store();
    expect(names(await searchContacts(index, STORE, { kind: 'phone', phone: '+442079460000' }))).toEqual(['c1', 'c2']);
    expect(names(await searchContacts(index, STORE, { kind: 'phone', phone: '+44207946000' }))).toEqual([]);
  });

  it('leaves out a contact whose entry lags behind a change of its name', async () => {
    const search = store();
    search.changeOnly(contact(STORE, 'c1', { firstName: 'Grace', lastName: 'Hopper' }));
    expect(names(await searchContacts(search.index, STORE, { kind: 'name', name: 'ada' }))).toEqual([]);
  });

  it('pages the results with a cursor', async () => {
    const search = memoryContactSearch();
    for (let i = 0; i < SEARCH_PAGE + 5; i++) search.save(contact(STORE, `p${i}`, { lastName: `Smith${i}` }));
    const first = await searchContacts(search.index, STORE, { kind: 'name', name: 'smith' });
    expect(first.items).toHaveLength(SEARCH_PAGE);
    expect(first.nextCursor).toBeDefined();
    const second = await searchContacts(search.index, STORE, { kind: 'name', name: 'smith' }, first.nextCursor);
    expect(second.items).toHaveLength(5);
    expect(second.nextCursor).toBeUndefined();
    expect(new Set([...first.items, ...second.items].map((c) => c.originId)).size).toBe(SEARCH_PAGE + 5);
  });
});

describe('the contact page', () => {
  const deps = (search: ReturnType<typeof memoryContactSearch>): ContactViewDeps => ({
    contacts: {
      find: async (storeId, email) =>
        [...search.contacts.values()].filter((c) => c.storeId === storeId && c.email?.toLowerCase() === email),
    },
    customers: { get: async (storeId, originId) => search.contacts.get(`${storeId}\n${originId}`) },
    search: search.index,
    emails: { latest: async () => [] },
    suppressions: { suppressedAmong: async () => new Set() },
    activity: { since: async () => [] },
    evaluations: { listForContact: async () => ({ items: [] }) },
    runs: { getMany: async () => [] },
    flows: { list: async () => [] },
    clock: { now: () => 1_700_000_000_000 },
  });
  const search = memoryContactSearch();
  search.save(contact(STORE, 'c1', { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' }));
  search.save(contact(STORE, 'c2', { firstName: 'Adèle', phone: '0612345678' }));
  search.save(contact(OTHER, 'c9', { firstName: 'Ada', email: 'ada@example.com' }));

  it('goes straight to the profile of the one match', async () => {
    const view = await contactPageView(deps(search), STORE, { q: 'LOVE' });
    expect(view).toMatchObject({ type: 'profile', view: { email: 'ada@example.com', contacts: [{ originId: 'c1' }] } });
    const byPhone = await contactPageView(deps(search), STORE, { q: '06 12 34 56 78' });
    expect(byPhone).toMatchObject({ type: 'profile', view: { contacts: [{ originId: 'c2' }], timeline: [] } });
    expect(byPhone.type === 'profile' && byPhone.view.email).toBeUndefined();
  });

  it('lists several matches, and opens a contact by its customer id in the opened store only', async () => {
    const view = await contactPageView(deps(search), STORE, { name: 'ad' });
    expect(view.type === 'results' && view.contacts.map((c) => c.originId).sort()).toEqual(['c1', 'c2']);
    expect(await contactPageView(deps(search), STORE, { id: 'c9' })).toEqual({ type: 'missing', id: 'c9' });
    expect(await contactPageView(deps(search), OTHER, { id: 'c9' })).toMatchObject({ type: 'profile' });
  });

  it('answers a malformed search with its reason instead of a page of results', async () => {
    expect(await contactPageView(deps(search), STORE, { q: '+1 2' })).toEqual({
      type: 'refused',
      message: 'phone must be a phone number: 4 to 15 digits, with an optional leading +',
    });
    expect(await contactPageView(deps(search), STORE, {})).toEqual({ type: 'form' });
  });

  it('shows an email’s outcomes oldest first, the clicks counted with the latest link', () => {
    const email: ContactEmail = {
      messageId: 'm1',
      storeId: STORE,
      email: 'ada@example.com',
      kind: 'flow',
      transmissionId: 'run-1',
      sentAt: 1_000,
      deliveredAt: 2_000,
      clickedAt: 9_000,
      clicks: 3,
      link: 'https://shop.example/p/1',
      openedAt: 5_000,
    };
    expect(outcomesOf(email)).toEqual([
      { outcome: 'delivered', at: 2_000 },
      { outcome: 'opened', at: 5_000 },
      { outcome: 'clicked', at: 9_000, detail: 'https://shop.example/p/1', count: 3 },
    ]);
  });
});
