/** General interface `customers/create`, `customers/update`, `customers` payloads (spec: "General event payloads"). */
import * as v from 'valibot';
import {
  address,
  countryCode,
  email,
  epochSeconds,
  id,
  marketingConsent,
  opt,
  text,
  yesNo,
} from '#shared/domain/events/fields.ts';

/** `tag_value`: category tags as `category:value` pairs separated by commas. */
const tagValue = () =>
  v.pipe(
    text(),
    v.check(
      (s) =>
        s
          .split(',')
          .map((pair) => pair.trim())
          .filter(Boolean)
          .every((pair) => /^[^:]+:.+$/.test(pair)),
      'must be "category:value" pairs separated by commas',
    ),
  );

const optionalFields = {
  first_name: opt(text()),
  last_name: opt(text()),
  phone: opt(text()),
  country_code: opt(countryCode()),
  locale: opt(text()),
  gender: opt(text()),
  birth_date: opt(text()),
  city: opt(text()),
  email_marketing_consent: opt(marketingConsent()),
  sms_marketing_consent: opt(marketingConsent()),
  default_address: opt(address()),
  tags: opt(v.array(text(), 'must be an array of strings')),
  tag_value: opt(tagValue()),
  ignore_flow: opt(yesNo()),
};

/** `customers/create` and `customers`: `id`, `email` and `created_at` are required. */
export const CustomerCreateData = v.looseObject({
  id: id(),
  email: email(),
  created_at: epochSeconds(),
  ...optionalFields,
});
export type CustomerCreateData = v.InferOutput<typeof CustomerCreateData>;

/** `customers/update`: the same fields, only `id` required; only the fields passed are updated. */
export const CustomerUpdateData = v.looseObject({
  id: id(),
  email: opt(email()),
  created_at: opt(epochSeconds()),
  ...optionalFields,
});
export type CustomerUpdateData = v.InferOutput<typeof CustomerUpdateData>;
