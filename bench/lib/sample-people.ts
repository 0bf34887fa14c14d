/**
 * Deterministic sample people for the benchmarks that seed or import contacts: person `i` (name, place, consents,
 * address, tags) is drawn from the pools below by a hash of `i`, so it is the same whatever order the people are made
 * in, and the export and import scenarios fill their contacts the same way.
 */
import type { CategoryTag } from '#shared/domain/customers/model.ts';
import type { ConsentState } from '#shared/domain/events/fields.ts';

const FIRST_NAMES = [
  'Emma',
  'Liam',
  'Chloé',
  'Noah',
  'Zoë',
  'José',
  'Björn',
  'Léa',
  'Mateo',
  'Ingrid',
  'Aurélie',
  'Łukasz',
  'Søren',
  'Amélie',
  'Hugo',
  'Sofia',
  'Yuki',
  'Ana',
  'Jean-Baptiste',
  'Olivia',
  'Mohamed',
  'Camille',
  'Lucas',
  'Nina',
];
const LAST_NAMES = [
  'Martin',
  'Müller',
  'García',
  'Dubois',
  "O'Brien",
  'Nguyễn',
  'Kowalski',
  'Rossi',
  'Jansen',
  'Dupont',
  'Smith',
  'Fernández',
  'Lefèvre',
  'Schmidt',
  'Tanaka',
  'Peeters',
  'Johansson',
  'Moreau',
  'Brown',
  'Silva',
];
const PLACES = [
  { country: 'FR', city: 'Paris', locale: 'fr-FR', zip: '75011', province: 'Île-de-France', dial: '+336' },
  { country: 'DE', city: 'München', locale: 'de-DE', zip: '80331', province: 'Bayern', dial: '+4915' },
  { country: 'US', city: 'New York', locale: 'en-US', zip: '10001', province: 'NY', dial: '+1212' },
  { country: 'GB', city: 'London', locale: 'en-GB', zip: 'EC1A 1BB', province: 'England', dial: '+447' },
  { country: 'ES', city: 'Sevilla', locale: 'es-ES', zip: '41001', province: 'Andalucía', dial: '+346' },
  { country: 'IT', city: 'Milano', locale: 'it-IT', zip: '20121', province: 'Lombardia', dial: '+393' },
  { country: 'NL', city: 'Amsterdam', locale: 'nl-NL', zip: '1012 AB', province: 'Noord-Holland', dial: '+316' },
  { country: 'BE', city: 'Liège', locale: 'fr-BE', zip: '4000', province: 'Liège', dial: '+324' },
  { country: 'CA', city: 'Montréal', locale: 'fr-CA', zip: 'H2X 1Y4', province: 'QC', dial: '+1514' },
  { country: 'JP', city: '東京', locale: 'ja-JP', zip: '100-0001', province: '東京都', dial: '+8190' },
] as const;
const STREETS = ['rue de la Roquette', 'Hauptstraße', 'Main Street', 'Calle Mayor', 'Via Roma', 'Keizersgracht'];
const GENDERS = ['female', 'male', 'female', 'male', 'other'];
const CONSENTS: readonly ConsentState[] = ['subscribed', 'subscribed', 'subscribed', 'not_subscribed', 'unsubscribed'];
const PLATFORM_TAGS = [
  'vip',
  'newsletter',
  'wholesale',
  'returning-customer',
  'loyalty-gold',
  'b2b',
  'black-friday-2024',
  'referral',
];
const CATEGORY_TAGS: readonly CategoryTag[] = [
  { category: 'interest', value: 'running' },
  { category: 'interest', value: 'yoga' },
  { category: 'interest', value: 'hiking' },
  { category: 'size', value: 'M' },
  { category: 'size', value: 'L' },
  { category: 'brand', value: 'Acme Outdoor' },
  { category: 'segment', value: 'high-value' },
  { category: 'segment', value: 'at-risk' },
  { category: 'style', value: 'minimalist' },
];

/** A deterministic integer hash: contact `i`'s choices do not depend on the order they are made in. */
const mix = (i: number, salt: number): number => {
  let a = (Math.imul(i + 1, 0x9e3779b1) ^ Math.imul(salt + 1, 0x85ebca77)) >>> 0;
  a = Math.imul(a ^ (a >>> 16), 0x45d9f3b);
  a = Math.imul(a ^ (a >>> 16), 0x45d9f3b);
  return (a ^ (a >>> 16)) >>> 0;
};
const pick = <T>(list: readonly T[], i: number, salt: number): T => list[mix(i, salt) % list.length] as T;
/** `n` distinct elements of `list`, chosen by `i`. */
const pickDistinct = <T>(list: readonly T[], i: number, salt: number, n: number): T[] => {
  const start = mix(i, salt) % list.length;
  const step = 1 + (mix(i, salt + 1) % (list.length - 1));
  const out: T[] = [];
  for (let k = 0, at = start; out.length < n; k++, at = (at + step) % list.length) {
    const candidate = list[at] as T;
    if (!out.includes(candidate)) out.push(candidate);
    if (k > list.length * n) break;
  }
  return out;
};
const two = (n: number) => String(n).padStart(2, '0');
const ascii = (text: string) =>
  text
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .replace('Ł', 'L')
    .replace('ø', 'o')
    .toLowerCase()
    .replace(/[^a-z]/g, '') || 'x';

/** Person `i`, created at `createdAt` (epoch seconds): everything a seeded contact or an imported line holds but ids. */
export const samplePerson = (i: number, createdAt: number) => {
  const firstName = pick(FIRST_NAMES, i, 1);
  const lastName = pick(LAST_NAMES, i, 2);
  const place = pick(PLACES, i, 3);
  return {
    firstName,
    lastName,
    place,
    email: `${ascii(firstName)}.${ascii(lastName)}.${i}@example.com`,
    phone: `${place.dial}${String(mix(i, 4) % 100_000_000).padStart(8, '0')}`,
    gender: pick(GENDERS, i, 5),
    birthDate: `${1950 + (mix(i, 6) % 56)}-${two(1 + (mix(i, 7) % 12))}-${two(1 + (mix(i, 8) % 28))}`,
    emailConsent: { state: pick(CONSENTS, i, 9), updatedAt: createdAt + (mix(i, 10) % 2_592_000) },
    smsConsent: { state: pick(CONSENTS, i, 11), updatedAt: createdAt + (mix(i, 12) % 2_592_000) },
    address: {
      first_name: firstName,
      last_name: lastName,
      address1: `${1 + (mix(i, 13) % 240)} ${pick(STREETS, i, 14)}`,
      city: place.city,
      zip: place.zip,
      province: place.province,
      country_code: place.country,
    },
    platformTags: pickDistinct(PLATFORM_TAGS, i, 15, 2),
    categoryTags: pickDistinct(CATEGORY_TAGS, i, 17, 3),
  };
};
