/**
 * Deterministic sample people for the benchmarks that seed or import contacts: name, place, consent and tag pools,
 * and the hash that picks from them, so person `i` is the same whatever order the people are made in.
 */
import type { CategoryTag } from '../../shared/domain/customers/customer.ts';
import type { ConsentState } from '../../shared/domain/events/fields.ts';

export const FIRST_NAMES = [
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
export const LAST_NAMES = [
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
export const PLACES = [
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
export const STREETS = ['rue de la Roquette', 'Hauptstraße', 'Main Street', 'Calle Mayor', 'Via Roma', 'Keizersgracht'];
export const GENDERS = ['female', 'male', 'female', 'male', 'other'];
export const CONSENTS: readonly ConsentState[] = [
  'subscribed',
  'subscribed',
  'subscribed',
  'not_subscribed',
  'unsubscribed',
];
export const PLATFORM_TAGS = [
  'vip',
  'newsletter',
  'wholesale',
  'returning-customer',
  'loyalty-gold',
  'b2b',
  'black-friday-2024',
  'referral',
];
export const CATEGORY_TAGS: readonly CategoryTag[] = [
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
export const mix = (i: number, salt: number): number => {
  let a = (Math.imul(i + 1, 0x9e3779b1) ^ Math.imul(salt + 1, 0x85ebca77)) >>> 0;
  a = Math.imul(a ^ (a >>> 16), 0x45d9f3b);
  a = Math.imul(a ^ (a >>> 16), 0x45d9f3b);
  return (a ^ (a >>> 16)) >>> 0;
};
export const pick = <T>(list: readonly T[], i: number, salt: number): T => list[mix(i, salt) % list.length] as T;
/** `n` distinct elements of `list`, chosen by `i`. */
export const pickDistinct = <T>(list: readonly T[], i: number, salt: number, n: number): T[] => {
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
export const two = (n: number) => String(n).padStart(2, '0');
export const ascii = (text: string) =>
  text
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .replace('Ł', 'L')
    .replace('ø', 'o')
    .toLowerCase()
    .replace(/[^a-z]/g, '') || 'x';
