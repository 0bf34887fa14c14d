/** General interface `products/create`, `products/update`, `products` payload (spec: "General event payloads"). */
import * as v from 'valibot';
import { amount, epochSeconds, id, nonEmptyText, opt, text, yesNo } from '#shared/domain/events/fields.ts';

const Variant = v.looseObject(
  {
    id: opt(id()),
    sku: opt(text()),
    price: opt(amount()),
    src: opt(text()),
    inventory_quantity: opt(v.pipe(v.number('must be an integer'), v.integer('must be an integer'))),
    option1: opt(text()),
    option2: opt(text()),
    option3: opt(text()),
  },
  'must be an object',
);

export const ProductData = v.looseObject({
  id: id(),
  title: nonEmptyText(),
  src: nonEmptyText(),
  purchase_url: nonEmptyText(),
  handle: opt(text()),
  created_at: opt(epochSeconds()),
  variants: v.pipe(v.array(Variant, 'must be an array'), v.minLength(1, 'must have at least one element')),
  ignore_flow: opt(yesNo()),
});
export type ProductData = v.InferOutput<typeof ProductData>;
