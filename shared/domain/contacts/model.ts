/** The contact record of the contact export (spec "Contact record (contact export)"). */
import type { Customer } from '#shared/domain/customers/model.ts';
import { processWide } from '#shared/lazy.ts';

/**
 * Built on the first country name: building it loads ICU's region data (17 ms of CPU on average in the bundle's
 * module init, bench `bundles`), and 56 functions import this module while only the contact export writes names.
 */
const regionNames = /* @__PURE__ */ processWide(() => new Intl.DisplayNames(['en'], { type: 'region' }));

const countryName = (code: string | undefined): string => {
  if (!code) return '';
  try {
    return regionNames().of(code) ?? '';
  } catch {
    return '';
  }
};

const two = (n: number) => String(n).padStart(2, '0');

/** `yyyy-MM-dd HH:mm:ss` in UTC (the export's documented time zone). */
export const formatDateTime = (epochSeconds: number): string => {
  const d = new Date(epochSeconds * 1000);
  return `${d.getUTCFullYear()}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;
};

/** `yyyy-MM-dd`, or an empty string when the stored birth date is not a date (spec: empty string when no data). */
export const formatBirthDate = (value: string | undefined): string => {
  const match = /^(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)/.exec(value?.trim() ?? '');
  if (!match) return '';
  const [year, month, day] = match.slice(1).map(Number) as [number, number, number];
  // A real calendar day: Date.UTC rolls 1990-02-30 over into March, so the day must come back unchanged.
  if (month < 1 || month > 12 || new Date(Date.UTC(year, month - 1, day)).getUTCDate() !== day) return '';
  return `${match[1]}-${two(month)}-${two(day)}`;
};

/** The spec allows `male` or `female`; anything else is exported as an empty string. */
const gender = (value: string | undefined): string => {
  const normalised = value?.trim().toLowerCase();
  return normalised === 'male' || normalised === 'female' ? normalised : '';
};

export interface ContactRecord {
  readonly id: string;
  readonly origin_id: string;
  readonly email: string;
  readonly phone: string;
  readonly first_name: string;
  readonly last_name: string;
  readonly country: string;
  readonly country_name: string;
  readonly city: string;
  readonly gender: string;
  readonly birth_date: string;
  readonly email_subscribed: boolean;
  readonly sms_subscribed: boolean;
  readonly created_at: string;
  readonly tags: readonly { readonly category: string; readonly value: string }[];
  readonly platform_tags: readonly string[];
}

export const contactRecord = (customer: Customer): ContactRecord => {
  const address = customer.defaultAddress;
  const addressCountry = address?.country_code?.trim().toUpperCase();
  const country = customer.countryCode?.toUpperCase() ?? addressCountry ?? '';
  return {
    id: customer.id,
    origin_id: customer.originId,
    email: customer.email ?? '',
    phone: customer.phone ?? '',
    first_name: customer.firstName ?? '',
    last_name: customer.lastName ?? '',
    country,
    // The address's own name only when the address is in the country exported (or does not say which country).
    country_name:
      ((addressCountry === undefined || addressCountry === country) && address?.country_name) || countryName(country),
    city: customer.city ?? address?.city ?? '',
    gender: gender(customer.gender),
    birth_date: formatBirthDate(customer.birthDate),
    email_subscribed: customer.emailConsent?.state === 'subscribed',
    sms_subscribed: customer.smsConsent?.state === 'subscribed',
    created_at: formatDateTime(customer.createdAt),
    tags: customer.categoryTags.map(({ category, value }) => ({ category, value })),
    platform_tags: [...customer.platformTags],
  };
};

/**
 * The most a contact's exported record may take, as JSON. With the largest page (5,000 contacts) a page is then at most
 * 80 MiB, which the export reads within its time and memory; a page whose answer would pass Lambda's 6 MB response
 * limit is handed over through a short-lived download link instead (docs/contacts.md "Paging"). A contact write that
 * would grow a record past it fails for good (recorded on the event; an import line fails alone).
 */
export const CONTACT_RECORD_MAX_BYTES = 16 * 1024;

const encoder = new TextEncoder();
export const contactRecordBytes = (customer: Customer): number =>
  encoder.encode(JSON.stringify(contactRecord(customer))).length;
