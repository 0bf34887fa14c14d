/** General interface cart and checkout payloads (spec: "carts/create, carts/update, carts", "checkouts/create"). */
import * as v from 'valibot';
import {
  address,
  amount,
  countryCode,
  email,
  epochSeconds,
  id,
  opt,
  requireOneOf,
  text,
  yesNo,
} from '#shared/domain/events/fields.ts';

/** Cart/checkout `line_items[]`: `product_id` and `variant_id` required. */
export const CartLine = v.looseObject(
  {
    id: opt(id()),
    product_id: id(),
    variant_id: id(),
    sku: opt(text()),
    title: opt(text()),
    quantity: opt(v.pipe(v.number('must be a number'), v.minValue(0, 'must not be negative'))),
    price: opt(amount()),
    line_price: opt(amount()),
    product_image_url: opt(text()),
    product_url: opt(text()),
  },
  'must be an object',
);

/** The general cart's fields (the headless cart checks the ones it shares by these: `headless.ts`). */
export const CART_FIELDS = {
  id: opt(id()),
  token: opt(id()),
  email: opt(email()),
  phone: opt(text()),
  first_name: opt(text()),
  last_name: opt(text()),
  country_code: opt(countryCode()),
  customer_id: opt(id()),
  checkout_url: opt(text()),
  line_items: opt(v.array(CartLine, 'must be an array')),
  ignore_flow: opt(yesNo()),
};

/**
 * Carts are identified by `token` (the spec's "core cart identifier"); a cart without a token falls back to `id`. One
 * of the two is required, or the cart could never be updated, checked out or recovered.
 */
export const CartData = requireOneOf(v.looseObject(CART_FIELDS), 'token', 'id');
export type CartData = v.InferOutput<typeof CartData>;

/** `checkouts/create` and `checkouts/update` (the latter "not shown": the same fields). `token` is required. */
export const CheckoutData = v.looseObject({
  token: id(),
  cart_token: opt(id()),
  email: opt(email()),
  phone: opt(text()),
  customer_id: opt(id()),
  country_code: opt(countryCode()),
  currency: opt(text()),
  total_price: opt(amount()),
  subtotal_price: opt(amount()),
  total_discount: opt(amount()),
  total_shipping: opt(amount()),
  total_tax: opt(amount()),
  abandoned_checkout_url: opt(text()),
  created_at: opt(epochSeconds()),
  shipping_address: opt(address()),
  line_items: opt(v.array(CartLine, 'must be an array')),
  ignore_flow: opt(yesNo()),
});
export type CheckoutData = v.InferOutput<typeof CheckoutData>;
