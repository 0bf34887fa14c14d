/**
 * General interface payloads of page views, back-in-stock subscriptions, restocks and custom notifications (spec:
 * "page/viewed", "products/back_in_stock", "products/restock", "flow/notify"). The spec lists their fields without a
 * "required" column; what a record cannot do without is required here and documented in docs/events.md.
 */
import * as v from 'valibot';
import {
  countryCode,
  email,
  epochSeconds,
  id,
  jsonObject,
  opt,
  phone,
  requireOneOf,
  text,
  yesNo,
} from '#shared/domain/events/fields.ts';

/** `page/viewed`: kept as the contact's history (by email), so `email` is required. */
export const PageViewedData = v.looseObject({
  email: email(),
  product_id: opt(id()),
  url: opt(text()),
  timestamp: opt(epochSeconds()),
  ignore_flow: opt(yesNo()),
});
export type PageViewedData = v.InferOutput<typeof PageViewedData>;

/** The general back-in-stock subscription's fields (the headless one checks the ones it shares by these). */
export const BACK_IN_STOCK_FIELDS = {
  product_id: id(),
  variant_id: opt(id()),
  email: opt(email()),
  phone: opt(phone()),
  ignore_flow: opt(yesNo()),
};

/** `products/back_in_stock`: a subscription needs the product and someone to notify (email, or phone as headless allows). */
export const BackInStockData = requireOneOf(v.looseObject(BACK_IN_STOCK_FIELDS), 'email', 'phone');
export type BackInStockData = v.InferOutput<typeof BackInStockData>;

/** `products/restock`: the product (and optionally the variant) that came back. */
export const RestockData = v.looseObject({
  product_id: id(),
  variant_id: opt(id()),
  ignore_flow: opt(yesNo()),
});
export type RestockData = v.InferOutput<typeof RestockData>;

/** `flow/notify`: the flow to run, who it is for, and free `custom` data for conditions and templates. */
export const FlowNotifyData = v.looseObject({
  flow_id: id(),
  email: opt(email()),
  phone: opt(text()),
  country_code: opt(countryCode()),
  first_name: opt(text()),
  last_name: opt(text()),
  custom: opt(jsonObject()),
  ignore_flow: opt(yesNo()),
});
export type FlowNotifyData = v.InferOutput<typeof FlowNotifyData>;
