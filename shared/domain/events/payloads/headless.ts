/**
 * Headless event payloads (spec: "Headless event payloads"), sent to `POST {front_url}/api/v1/headless/events`.
 *
 * Each takes the fields of the spec's headless table, and checks every field it shares with the general interface's
 * payload of the same endpoint by the general schema itself (`withGeneralFields`): a headless customer is written as a
 * general one is (`tags`, `tag_value`, `gender` …), so a value the general interface refuses is refused here too (412
 * naming the field), never stored for the worker to trip on. Where the headless table names a field, its own rule
 * stands (e.g. `phone`, at most 64 characters).
 */
import * as v from 'valibot';
import {
  amount,
  countryCode,
  email,
  epochSeconds,
  id,
  nonEmptyText,
  opt,
  phone,
  requireOneOf,
  text,
  withGeneralFields,
} from '#shared/domain/events/fields.ts';
import { CART_FIELDS, CartLine } from './carts.ts';
import { CustomerUpdateData } from './customers.ts';
import { BACK_IN_STOCK_FIELDS, PageViewedData } from './engagement.ts';

/**
 * `page/viewed`. `requestId` may be empty (then no flow starts, rule 3); `page.productId` is required on product pages
 * (`includeProduct` 1) and omitted otherwise.
 */
export const HeadlessPageViewedData = v.pipe(
  v.looseObject(
    withGeneralFields(
      {
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
      },
      PageViewedData.entries,
    ),
  ),
  v.forward(
    v.check((data) => data.includeProduct === 0 || data.page.productId !== undefined, 'is required on product pages'),
    ['page', 'productId'],
  ),
);
export type HeadlessPageViewedData = v.InferOutput<typeof HeadlessPageViewedData>;

/** Headless cart lines: title, quantity, price and product id required. */
const HeadlessCartLine = v.looseObject(
  withGeneralFields(
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
    CartLine.entries,
  ),
  'must be an object',
);

/** `carts/create`, `carts/update`: `line_items` is the complete list; an empty array empties the cart. */
export const HeadlessCartData = v.looseObject(
  withGeneralFields(
    {
      token: id(),
      checkout_url: nonEmptyText(),
      timestamp: epochSeconds(),
      line_items: v.array(HeadlessCartLine, 'must be an array'),
      customer_id: opt(id()),
      email: opt(email()),
    },
    CART_FIELDS,
  ),
);
export type HeadlessCartData = v.InferOutput<typeof HeadlessCartData>;

/** `customers/create` (a form subscription): `id`, `created_at`, and an email or a phone. */
export const HeadlessCustomerData = requireOneOf(
  v.looseObject(
    withGeneralFields(
      {
        id: id(),
        created_at: epochSeconds(),
        email: opt(email()),
        phone: opt(phone()),
        country_code: opt(countryCode()),
        first_name: opt(text()),
        last_name: opt(text()),
      },
      CustomerUpdateData.entries,
    ),
  ),
  'email',
  'phone',
);
export type HeadlessCustomerData = v.InferOutput<typeof HeadlessCustomerData>;

/** `products/back_in_stock`: product id, variants (empty variant when omitted), and an email or a phone. */
export const HeadlessBackInStockData = requireOneOf(
  v.looseObject(
    withGeneralFields(
      {
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
      },
      BACK_IN_STOCK_FIELDS,
    ),
  ),
  'email',
  'phone',
);
export type HeadlessBackInStockData = v.InferOutput<typeof HeadlessBackInStockData>;
