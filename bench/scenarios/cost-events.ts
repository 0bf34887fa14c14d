/**
 * The events the cost scenario sends (bench/scenarios/cost.ts): per event class of the merchant mix, pairs where the
 * second event updates what the first created, so each class costs what its real traffic would (a create, then the
 * update the store sends next).
 */
import type { EventClass } from '#bench/cost-model.ts';

/** Event timestamps (epoch seconds): fixed, so runs send the same payloads. */
const T0 = 1_700_000_000;

export interface PlannedEvent {
  readonly endpoint: string;
  readonly data: Record<string, unknown>;
}

const line = (n: number) => ({
  product_id: `p-${n % 40}`,
  variant_id: `p-${n % 40}-v1`,
  title: `Product ${n % 40}`,
  quantity: 1,
  price: '19.90',
});
const order = (prefix: string, n: number, status: string) => ({
  id: `${prefix}-o${n}`,
  customer_id: `${prefix}-c${n}`,
  email: `${prefix}${n}@shopper.example`,
  name: `#${1000 + n}`,
  order_status: status,
  total_price: '39.80',
  currency: 'EUR',
  created_at: T0 + n,
  line_items: [{ id: 'line-1', ...line(n) }],
});

/** The events of one class, in pairs where the second updates what the first created (sent in order). */
export const eventsOf = (eventClass: EventClass | 'paid', prefix: string, count: number): PlannedEvent[][] => {
  const pairs: PlannedEvent[][] = [];
  for (let n = 0; pairs.flat().length < count; n++) {
    const email = `${prefix}${n}@shopper.example`;
    const cart = (lines: number) => ({
      token: `${prefix}-cart-${n}`,
      email,
      checkout_url: `https://shop.example/cart/${n}`,
      line_items: Array.from({ length: lines }, (_, i) => line(n + i)),
    });
    switch (eventClass) {
      case 'page_views':
        pairs.push([
          {
            endpoint: 'page/viewed',
            data: { email, product_id: `p-${n % 40}`, url: `https://shop.example/p/${n}`, timestamp: T0 + n },
          },
        ]);
        break;
      case 'carts':
        pairs.push([
          { endpoint: 'carts/create', data: cart(1) },
          { endpoint: 'carts/update', data: cart(2) },
        ]);
        break;
      case 'customers':
        pairs.push([
          {
            endpoint: 'customers/create',
            data: { id: `${prefix}-c${n}`, email, created_at: T0 + n, first_name: 'Ada', country_code: 'FR' },
          },
          {
            endpoint: 'customers/update',
            data: { id: `${prefix}-c${n}`, email_marketing_consent: { state: 'subscribed', updatedAt: T0 + n } },
          },
        ]);
        break;
      case 'orders':
        pairs.push([
          { endpoint: 'orders/create', data: order(prefix, n, 'pending') },
          { endpoint: 'orders/paid', data: { ...order(prefix, n, 'paid'), payment_at: T0 + n + 60 } },
        ]);
        break;
      case 'paid':
        pairs.push([{ endpoint: 'orders/paid', data: { ...order(prefix, n, 'paid'), payment_at: T0 + n + 60 } }]);
        break;
      case 'other':
        pairs.push([
          {
            endpoint: 'checkouts/create',
            data: {
              token: `${prefix}-chk-${n}`,
              email,
              currency: 'EUR',
              total_price: '19.90',
              abandoned_checkout_url: `https://shop.example/checkouts/${n}`,
              created_at: T0 + n,
              line_items: [line(n)],
            },
          },
          {
            endpoint: 'products',
            data: {
              id: `${prefix}-p${n}`,
              title: `Lamp ${n}`,
              src: `https://shop.example/p${n}.jpg`,
              purchase_url: `https://shop.example/products/${n}`,
              variants: [{ id: `${prefix}-p${n}-v1`, price: '19.90', inventory_quantity: 3 }],
            },
          },
        ]);
        break;
    }
  }
  return pairs;
};
