/** Orders, carts and checkouts: revisioned records keyed per store. */
import type { Cart } from '#shared/domain/carts/model.ts';
import type { CartRepository } from '#shared/domain/carts/ports.ts';
import type { Checkout } from '#shared/domain/checkouts/model.ts';
import type { CheckoutRepository } from '#shared/domain/checkouts/ports.ts';
import type { Order } from '#shared/domain/orders/model.ts';
import type { OrderRepository } from '#shared/domain/orders/ports.ts';
import type { ItemReader } from './coalesced.ts';
import { keys } from './keys.ts';
import { revisionedRepository } from './revisioned.ts';

/** `reads`: where `get` reads (the ingest worker gathers its batch's reads, `coalesced.ts`). */
export const dynamoOrderRepository = (reads?: ItemReader): OrderRepository =>
  revisionedRepository<Order>({ reads, entity: 'order', key: keys.order, idOf: (order) => order.id });

export const dynamoCartRepository = (reads?: ItemReader): CartRepository =>
  revisionedRepository<Cart>({ reads, entity: 'cart', key: keys.cart, idOf: (cart) => cart.token });

export const dynamoCheckoutRepository = (reads?: ItemReader): CheckoutRepository =>
  revisionedRepository<Checkout>({ reads, entity: 'checkout', key: keys.checkout, idOf: (checkout) => checkout.token });
