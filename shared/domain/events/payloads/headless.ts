/** Headless event payloads (spec: "Headless event payloads"), sent to `POST {front_url}/api/v1/headless/events`. */
import * as v from 'valibot';
import {
  amount,
  countryCode,
  email,
  epochSeconds,
  id,
  marketingConsent,
  nonEmptyText,
  opt,
  phone,
  requireOneOf,
  text,
} from '#shared/domain/events/fields.ts';

/**
 * `page/viewed`. `requestId` may be empty (then no flow starts, rule 3); `page.productId` is required on product pages
 * (`includeProduct` 1) and omitted otherwise.
 */
export const HeadlessPageViewedData = v.pipe(
  v.looseObject({
    requestId: text(),
    type: v.literal('page', 'must be "page"'),
    includeProduct: v.picklist([0, 1], 'must be 0 or 1'),
    page: v.looseObject(
      {
        url: nonEmptyText(),
        title: text(),
        productId: opt(id()),
      },
      'must be an object',
    ),
    customerId: opt(id()),
    currencySymbol: opt(text()),
  }),
  v.forward(
    v.check((data) => data.includeProduct === 0 || data.page.productId !== undefined, 'is required on product pages'),
    ['page', 'productId'],
  ),
);
export type HeadlessPageViewedData = v.InferOutput<typeof HeadlessPageViewedData>;

/** Headless cart lines: title, quantity, price and product id required. */
const HeadlessCartLine = v.looseObject(
  {
    title: text(),
    quantity: v.pipe(
      v.number('must be a number'),
      v.integer('must be an integer'),
      v.minValue(0, 'must not be negative'),
    ),
    price: amount(),
    product_id: id(),
    sku: opt(text()),
  },
  'must be an object',
);

/** `carts/create`, `carts/update`: `line_items` is the complete list; an empty array empties the cart. */
export const HeadlessCartData = v.looseObject({
  token: id(),
  checkout_url: nonEmptyText(),
  timestamp: epochSeconds(),
  line_items: v.array(HeadlessCartLine, 'must be an array'),
  customer_id: opt(id()),
  email: opt(email()),
});
export type HeadlessCartData = v.InferOutput<typeof HeadlessCartData>;

const consentState = () => v.looseObject({ state: marketingConsent().entries.state }, 'must be an object');

/** `customers/create` (a form subscription): `id`, `created_at`, and an email or a phone. */
export const HeadlessCustomerData = requireOneOf(
  v.looseObject({
    id: id(),
    created_at: epochSeconds(),
    email: opt(email()),
    phone: opt(phone()),
    country_code: opt(countryCode()),
    first_name: opt(text()),
    last_name: opt(text()),
    email_marketing_consent: opt(consentState()),
    sms_marketing_consent: opt(consentState()),
  }),
  'email',
  'phone',
);
export type HeadlessCustomerData = v.InferOutput<typeof HeadlessCustomerData>;

/** `products/back_in_stock`: product id, variants (empty variant when omitted), and an email or a phone. */
export const HeadlessBackInStockData = requireOneOf(
  v.looseObject({
    product_id: id(),
    product_variants: opt(v.array(id(), 'must be an array of strings')),
    email: opt(email()),
    phone: opt(phone()),
    country_code: opt(countryCode()),
    first_name: opt(text()),
    last_name: opt(text()),
    product_name: opt(text()),
    product_url: opt(text()),
    product_variant_name: opt(text()),
  }),
  'email',
  'phone',
);
export type HeadlessBackInStockData = v.InferOutput<typeof HeadlessBackInStockData>;
