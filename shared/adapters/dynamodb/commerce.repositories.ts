/** Orders, carts and checkouts: revisioned records keyed per store. */
import type { Cart } from '../../domain/carts/cart.ts';
import type { Checkout } from '../../domain/checkouts/checkout.ts';
import type { Order } from '../../domain/orders/order.ts';
import type { CartRepository, CheckoutRepository, OrderRepository } from '../../domain/ports.ts';
import { keys } from './keys.ts';
import { revisionedRepository } from './revisioned.ts';

export const dynamoOrderRepository = (): OrderRepository =>
  revisionedRepository<Order>({ entity: 'order', key: keys.order, idOf: (order) => order.id });

export const dynamoCartRepository = (): CartRepository =>
  revisionedRepository<Cart>({ entity: 'cart', key: keys.cart, idOf: (cart) => cart.token });

export const dynamoCheckoutRepository = (): CheckoutRepository =>
  revisionedRepository<Checkout>({ entity: 'checkout', key: keys.checkout, idOf: (checkout) => checkout.token });
