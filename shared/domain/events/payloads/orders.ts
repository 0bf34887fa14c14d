/**
 * General interface order payloads. `orders/create`, `orders/paid`, `orders/fulfilled` use the spec's order table.
 * `orders/update`, `orders/cancelled`, `orders/refunded` are "not shown" in the spec: they take the same fields, with only
 * `id` required (an update carries what changed); `orders/cancelled` and `orders/refunded` imply their status.
 */
import * as v from 'valibot';
import {
  address,
  amount,
  countryCode,
  email,
  epochSeconds,
  id,
  nonEmptyText,
  opt,
  text,
  yesNo,
} from '#shared/domain/events/fields.ts';

export const ORDER_STATUSES = ['pending', 'paid', 'fulfilled', 'cancelled', 'voided', 'refunded'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export const FULFILLMENT_STATUSES = ['fulfilled', 'partial', 'unfulfilled'] as const;

/** The spec lists lower-case statuses, and shows `PAID` in the abandoned-checkout procedure: any case is accepted. */
const orderStatus = () =>
  v.pipe(text(), v.toLowerCase(), v.picklist(ORDER_STATUSES, `must be one of: ${ORDER_STATUSES.join(', ')}`));

const fulfillmentStatus = () =>
  v.pipe(
    text(),
    v.toLowerCase(),
    v.picklist(FULFILLMENT_STATUSES, `must be one of: ${FULFILLMENT_STATUSES.join(', ')}`),
  );

const quantity = () => v.pipe(v.number('must be a number'), v.minValue(0, 'must not be negative'));

const lineFields = {
  id: opt(id()),
  product_id: opt(id()),
  variant_id: opt(id()),
  sku: opt(text()),
  name: opt(text()),
  title: opt(text()),
  variant_title: opt(text()),
  quantity: opt(quantity()),
  price: opt(amount()),
  line_price: opt(amount()),
  total_discount: opt(amount()),
  src: opt(text()),
  product_url: opt(text()),
  fulfillment_status: opt(fulfillmentStatus()),
  tracking_company: opt(text()),
  tracking_number: opt(text()),
  tracking_url: opt(text()),
};

const OrderLine = v.looseObject(lineFields, 'must be an object');

/** `orders/fulfilled`: "the three tracking fields must be filled in the lines". */
const FulfilledOrderLine = v.looseObject(
  {
    ...lineFields,
    tracking_company: nonEmptyText(),
    tracking_number: nonEmptyText(),
    tracking_url: nonEmptyText(),
  },
  'must be an object',
);

const lines = <S extends v.GenericSchema>(line: S) =>
  v.pipe(v.array(line, 'must be an array'), v.minLength(1, 'must have at least one element'));

const optionalOrderFields = {
  currency: opt(text()),
  subtotal_price: opt(amount()),
  total_discount: opt(amount()),
  total_shipping: opt(amount()),
  total_tax: opt(amount()),
  payment_method: opt(text()),
  shipping_method: opt(text()),
  cart_token: opt(id()),
  checkout_token: opt(id()),
  order_status_url: opt(text()),
  payment_at: opt(epochSeconds()),
  created_at: opt(epochSeconds()),
  updated_at: opt(epochSeconds()),
  fulfillment_status: opt(fulfillmentStatus()),
  phone: opt(text()),
  country_code: opt(countryCode()),
  shipping_address: opt(address()),
  billing_address: opt(address()),
  ignore_flow: opt(yesNo()),
};

/** `orders/create`, `orders/paid`: the spec's order table. */
export const OrderData = v.looseObject({
  id: id(),
  customer_id: id(),
  email: email(),
  name: nonEmptyText(),
  order_status: orderStatus(),
  total_price: amount(),
  line_items: lines(OrderLine),
  ...optionalOrderFields,
});
export type OrderData = v.InferOutput<typeof OrderData>;

/** `orders/fulfilled`: the order table, every line with its tracking company, number and URL. */
export const FulfilledOrderData = v.looseObject({
  ...OrderData.entries,
  line_items: lines(FulfilledOrderLine),
});

/** `orders/update`, `orders/cancelled`, `orders/refunded`: the order fields, only `id` required. */
export const OrderChangeData = v.looseObject({
  id: id(),
  customer_id: opt(id()),
  email: opt(email()),
  name: opt(nonEmptyText()),
  order_status: opt(orderStatus()),
  total_price: opt(amount()),
  line_items: opt(lines(OrderLine)),
  ...optionalOrderFields,
});
export type OrderChangeData = v.InferOutput<typeof OrderChangeData>;
