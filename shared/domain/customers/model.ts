/**
 * Customers (contacts) and how customer events change them. Pure functions: no I/O.
 *
 * Spec rules applied here ("General event payloads"): `customers/update` changes only the fields passed; `customers`
 * and `customers/create` create the customer or, when the `id` exists, update it; `created_at` in seconds or
 * milliseconds; `tags` are the platform tags; `tag_value` holds category tags as `category:value` pairs.
 */
import { mergeExtraProperties } from '#shared/domain/events/extra-properties.ts';
import type { ConsentState } from '#shared/domain/events/fields.ts';
import type { CustomerCreateData, CustomerUpdateData } from '#shared/domain/events/payloads/customers.ts';

export interface MarketingConsent {
  readonly state: ConsentState;
  /** Seconds. */
  readonly updatedAt?: number;
}

export interface CategoryTag {
  readonly category: string;
  readonly value: string;
}

export type Address = Readonly<Record<string, string>>;

export interface Customer {
  readonly storeId: string;
  /** The service's own contact id. */
  readonly id: string;
  /** The customer's id in the caller's system (`data.id`). */
  readonly originId: string;
  readonly email?: string;
  readonly phone?: string;
  readonly firstName?: string;
  readonly lastName?: string;
  readonly countryCode?: string;
  readonly locale?: string;
  readonly gender?: string;
  readonly birthDate?: string;
  readonly city?: string;
  readonly emailConsent?: MarketingConsent;
  /**
   * Created by a sign-up through the publishable key and not written by the store's own systems since: its address
   * was typed by anyone, so flows started from the publishable key do not mail it (`knownAddress`).
   */
  readonly publicSignUp?: true;
  /**
   * Double opt-in of a sign-up through the publishable key that gave email consent: when the confirmation was asked
   * of the address (epoch ms), and when its owner confirmed (epoch ms). Until confirmed, the consent is stored
   * `not_subscribed` (the spec's states stay the spec's); confirming sets it `subscribed`.
   */
  readonly emailConfirmation?: { readonly requestedAt: number; readonly confirmedAt?: number };
  readonly smsConsent?: MarketingConsent;
  readonly defaultAddress?: Address;
  /** `tags`: the platform's own customer tags. */
  readonly platformTags: readonly string[];
  /** `tag_value`: category tags of the direct-API catalogue. */
  readonly categoryTags: readonly CategoryTag[];
  /** Fields the payload carried beyond the spec's table: kept, not rejected. */
  readonly attributes: Readonly<Record<string, unknown>>;
  /** Creation time in seconds (`created_at`). */
  readonly createdAt: number;
  /** Epoch milliseconds of the last change. */
  readonly updatedAt: number;
  /** Optimistic-concurrency counter, 1 after the first save. */
  readonly revision: number;
}

type CustomerData = CustomerCreateData | CustomerUpdateData;

/** Payload field → customer property, for the plain string fields. */
const SCALAR_FIELDS = {
  email: 'email',
  phone: 'phone',
  first_name: 'firstName',
  last_name: 'lastName',
  country_code: 'countryCode',
  locale: 'locale',
  gender: 'gender',
  birth_date: 'birthDate',
  city: 'city',
} as const satisfies Record<string, keyof Customer>;

/** Every field of the spec's customer table; anything else in `data` is kept in `attributes`. */
const KNOWN_FIELDS = new Set<string>([
  ...Object.keys(SCALAR_FIELDS),
  'id',
  'created_at',
  'email_marketing_consent',
  'sms_marketing_consent',
  'default_address',
  'tags',
  'tag_value',
  'ignore_flow',
]);

export const parseTagValue = (tagValue: string): CategoryTag[] => {
  const tags: CategoryTag[] = [];
  for (const pair of tagValue.split(',')) {
    const at = pair.indexOf(':');
    if (at <= 0) continue;
    const category = pair.slice(0, at).trim();
    const value = pair.slice(at + 1).trim();
    if (category && value && !tags.some((t) => t.category === category && t.value === value)) {
      tags.push({ category, value });
    }
  }
  return tags;
};

const definedEntries = (record: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));

const consentOf = (value: unknown): MarketingConsent | undefined => {
  if (!value || typeof value !== 'object') return undefined;
  const { state, updatedAt } = value as { state: ConsentState; updatedAt?: number };
  return updatedAt === undefined ? { state } : { state, updatedAt };
};

/** The changes a payload asks for: only the fields it carries. */
export const customerChanges = (data: CustomerData): Partial<Customer> => {
  const changes: Record<string, unknown> = {};
  for (const [field, property] of Object.entries(SCALAR_FIELDS)) {
    const value = data[field as keyof typeof SCALAR_FIELDS];
    if (value !== undefined) changes[property] = value;
  }
  if (data.created_at !== undefined) changes.createdAt = data.created_at;
  if (data.email_marketing_consent) changes.emailConsent = consentOf(data.email_marketing_consent);
  if (data.sms_marketing_consent) changes.smsConsent = consentOf(data.sms_marketing_consent);
  if (data.default_address) changes.defaultAddress = definedEntries(data.default_address);
  if (data.tags) changes.platformTags = [...new Set(data.tags)];
  if (data.tag_value !== undefined) changes.categoryTags = parseTagValue(data.tag_value);
  const extra = Object.entries(data).filter(([key, value]) => !KNOWN_FIELDS.has(key) && value !== undefined);
  if (extra.length > 0) changes.attributes = Object.fromEntries(extra);
  return changes;
};

export interface CustomerWrite {
  readonly customer: Customer;
  /** True when this event created the customer (the spec starts the "customer created" flow only then). */
  readonly created: boolean;
}

/**
 * Applies a customer payload to the stored customer, or creates one. Unknown extra fields merge into `attributes`;
 * a customer first seen through `customers/update` is created with the fields passed (nothing a merchant sends is
 * dropped), `created_at` defaulting to the time of the event.
 */
export const applyCustomerData = (
  existing: Customer | undefined,
  data: CustomerData,
  context: { storeId: string; newId: () => string; now: number },
): CustomerWrite => {
  const { attributes, ...changes } = customerChanges(data);
  if (existing) {
    const customer: Customer = {
      ...existing,
      ...changes,
      attributes: mergeExtraProperties('customer', existing.attributes, attributes ?? {}),
      updatedAt: context.now,
      revision: existing.revision + 1,
    };
    return { customer, created: false };
  }
  const customer: Customer = {
    platformTags: [],
    categoryTags: [],
    ...changes,
    storeId: context.storeId,
    id: context.newId(),
    originId: String(data.id),
    attributes: mergeExtraProperties('customer', {}, attributes ?? {}),
    createdAt: changes.createdAt ?? Math.floor(context.now / 1000),
    updatedAt: context.now,
    revision: 1,
  };
  return { customer, created: true };
};
