/** Webhook bodies per topic (spec "Events" → "Topics"), built from the service's records. */

import type { Customer, MarketingConsent } from '#shared/domain/customers/model.ts';
import type { ConsentState } from '#shared/domain/events/fields.ts';
import type { StoreType } from '#shared/domain/stores/model.ts';

/** The customer fields `customer/newsletter` and format one of `customer/marketing` share (absent fields empty). */
const customerFields = (customer: Customer) => ({
  id: customer.originId,
  email: customer.email ?? '',
  phone: customer.phone ?? '',
  first_name: customer.firstName ?? '',
  last_name: customer.lastName ?? '',
  city: customer.city ?? '',
  gender: customer.gender ?? '',
  birthdate: customer.birthDate ?? '',
  country_code: customer.countryCode ?? '',
  created_at: customer.createdAt,
});

/** `customer/newsletter`: a subscriber collected by a form. States are `subscribed` or `undefined`. */
export const newsletterBody = (customer: Customer, nowSeconds: number) => ({
  ...customerFields(customer),
  source: 'customer/newsletter',
  email_marketing_consent: {
    state: customer.emailConsent?.state === 'subscribed' ? 'subscribed' : 'undefined',
    updated_at: customer.emailConsent?.updatedAt ?? nowSeconds,
  },
  sms_marketing_consent: { state: customer.smsConsent?.state === 'subscribed' ? 'subscribed' : 'undefined' },
});

/** No consent recorded reads as "not subscribed". */
const effective = (consent: MarketingConsent | undefined): ConsentState => consent?.state ?? 'not_subscribed';

/** True when the email or SMS consent state differs between two versions of a customer (spec: `customer/marketing`). */
export const consentChanged = (before: Customer | undefined, after: Customer): boolean =>
  effective(before?.emailConsent) !== effective(after.emailConsent) ||
  effective(before?.smsConsent) !== effective(after.smsConsent);

const FORMAT_ONE_STATE: Record<ConsentState, string> = {
  subscribed: 'SUBSCRIBED',
  unsubscribed: 'UNSUBSCRIBED',
  not_subscribed: 'NOT_SUBSCRIBED',
};
const FORMAT_TWO_STATE: Record<ConsentState, number> = { subscribed: 1, unsubscribed: 2, not_subscribed: 0 };

/**
 * `customer/marketing`: format one (direct-API stores: snake_case, states `SUBSCRIBED`/`UNSUBSCRIBED`/`NOT_SUBSCRIBED`)
 * or format two (platform stores: camelCase, states 1 subscribed / 2 unsubscribed / 0 not subscribed).
 */
export const marketingBody = (customer: Customer, storeType: StoreType, nowSeconds: number) => {
  const updatedAt = (consent: MarketingConsent | undefined) => consent?.updatedAt ?? nowSeconds;
  if (storeType === 'platform') {
    return {
      audienceId: customer.id,
      originId: customer.originId,
      shopId: customer.storeId,
      email: customer.email ?? '',
      phone: customer.phone ?? '',
      firstName: customer.firstName ?? '',
      lastName: customer.lastName ?? '',
      city: customer.city ?? '',
      gender: customer.gender ?? '',
      birthDate: customer.birthDate ?? '',
      countryCode: customer.countryCode ?? '',
      createdAt: customer.createdAt,
      updatedAt: nowSeconds,
      emailMarketingConsent: {
        state: FORMAT_TWO_STATE[effective(customer.emailConsent)],
        updatedAt: updatedAt(customer.emailConsent),
      },
      smsMarketingConsent: {
        state: FORMAT_TWO_STATE[effective(customer.smsConsent)],
        updatedAt: updatedAt(customer.smsConsent),
      },
    };
  }
  return {
    ...customerFields(customer),
    email_marketing_consent: {
      state: FORMAT_ONE_STATE[effective(customer.emailConsent)],
      updated_at: updatedAt(customer.emailConsent),
    },
    sms_marketing_consent: {
      state: FORMAT_ONE_STATE[effective(customer.smsConsent)],
      updated_at: updatedAt(customer.smsConsent),
    },
  };
};
