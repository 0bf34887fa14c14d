/** What every apply step gets: the ports, and helpers shared by the steps. */

import type { AttributionStore } from '#shared/domain/attribution/ports.ts';
import type { BackInStockRepository } from '#shared/domain/back-in-stock/ports.ts';
import { closeCart, isOpen } from '#shared/domain/carts/model.ts';
import type { CartRepository } from '#shared/domain/carts/ports.ts';
import type { CheckoutRepository } from '#shared/domain/checkouts/ports.ts';
import type { Clock } from '#shared/domain/clock.ts';
import type { CustomerRepository } from '#shared/domain/customers/ports.ts';
import type { FlowTriggers } from '#shared/domain/flows/ports.ts';
import type { FlowKind, FlowTrigger, TriggerContact } from '#shared/domain/flows/trigger.ts';
import type { IngestMessage } from '#shared/domain/ingest/model.ts';
import type { OrderRepository } from '#shared/domain/orders/ports.ts';
import type { ProductRepository } from '#shared/domain/products/ports.ts';
import type { Timers } from '#shared/domain/timers/ports.ts';
import type { WebhookEvents } from '#shared/domain/webhooks/ports.ts';

export interface ApplyDeps {
  readonly customers: CustomerRepository;
  /** What the emails earned: a paid order is attributed once (`shared/domain/attribution`). */
  readonly attribution: AttributionStore;
  /** The store's settings (its influence window). */
  readonly stores: { get(storeId: string): Promise<{ influenceWindowDays?: number } | undefined> };
  readonly products: ProductRepository;
  readonly orders: OrderRepository;
  readonly carts: CartRepository;
  readonly checkouts: CheckoutRepository;
  readonly backInStock: BackInStockRepository;
  readonly timers: Timers;
  readonly triggers: FlowTriggers;
  readonly webhooks: WebhookEvents;
  readonly clock: Clock;
  readonly newContactId: () => string;
  /** Sends a public sign-up's confirmation email, within its bounds (`requestConfirmation`); answers what it did. */
  readonly confirmations: { request(storeId: string, email: string): Promise<string> };
  /** Wait before checkout recovery (spec: at least 30 minutes advised). */
  readonly checkoutRecoveryWaitMs: number;
}

/** What applying one event did, for logs and tests. */
export interface ApplyOutcome {
  /** The entity written, e.g. `customer`, `cart`, or `none`. */
  readonly applied: string;
  readonly triggers: readonly FlowKind[];
  /** The contact whose segment facts the event changed (a customer written, an order placed), if any. */
  readonly contact?: { readonly customerId?: string; readonly email?: string };
  /** The order written, as segment facts count it. */
  readonly order?: {
    readonly id: string;
    readonly status?: string;
    readonly details: Readonly<Record<string, unknown>>;
  };
}

const MAX_CONFLICT_RETRIES = 5;

/** Read-modify-write with a revision check, retried when another writer got there first. */
export const withRetry = async <T>(attempt: () => Promise<T>): Promise<T> => {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof Error && error.name === 'RevisionConflict') || tries >= MAX_CONFLICT_RETRIES) throw error;
    }
  }
};

/** Deletes the cart (closes it, keeping its tombstone) after a checkout or a payment; no cart, nothing to do. */
export const deleteCart = (deps: ApplyDeps, storeId: string, token: string, by: 'checkout' | 'payment') =>
  withRetry(async () => {
    const cart = await deps.carts.get(storeId, token);
    if (!isOpen(cart)) return;
    await deps.carts.save(closeCart(cart, by, deps.clock.now()), cart.revision);
  });

/** Builds and fires a trigger caused by an event; its id makes a redelivered event fire nothing new. */
export const fireFromEvent = async (
  deps: ApplyDeps,
  message: IngestMessage,
  trigger: {
    kind: FlowKind;
    subject: FlowTrigger['subject'];
    contact: { readonly [K in keyof TriggerContact]?: TriggerContact[K] | undefined };
    context: Record<string, unknown>;
    /** Distinguishes several triggers of one kind from one event (e.g. one per back-in-stock subscriber). */
    discriminator?: string;
    /** The address came from the publishable key (`FlowTrigger.publicOrigin`). */
    publicOrigin?: boolean;
  },
): Promise<FlowKind> => {
  const suffix = trigger.discriminator ? `#${trigger.discriminator}` : '';
  await deps.triggers.fire({
    id: `event#${message.sourceId}#${trigger.kind}${suffix}`,
    storeId: message.storeId,
    kind: trigger.kind,
    subject: trigger.subject,
    contact: withoutUndefined(trigger.contact) as TriggerContact,
    cause: { endpoint: message.endpoint, sourceId: message.sourceId },
    context: trigger.context,
    at: deps.clock.now(),
    ...(trigger.publicOrigin ? { publicOrigin: true as const } : {}),
  });
  return trigger.kind;
};

/** `T` with its possibly-undefined properties made optional instead (what `exactOptionalPropertyTypes` wants). */
export type Compact<T> = { [K in keyof T as undefined extends T[K] ? never : K]: T[K] } & {
  [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
};

/** Drops the properties whose value is `undefined`. */
export const withoutUndefined = <T extends object>(record: T): Compact<T> =>
  Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as Compact<T>;
