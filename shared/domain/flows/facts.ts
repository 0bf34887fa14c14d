/**
 * The fields conditions can name (entry conditions and `exit_if`), resolved lazily: a condition on `custom.level` reads
 * nothing, one on `contact.order_count` or `activity.*` reads the contact's recorded activity once. Every field is
 * listed in docs/flows.md "How runs work"; a field the engine does not know reads as absent (so `exists` is false).
 */

import type { CartRepository } from '#shared/domain/carts/ports.ts';
import type { CheckoutRepository } from '#shared/domain/checkouts/ports.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import { type Facts, pathValue } from './conditions.ts';
import type { ContactActivity, ContactActivityEntry } from './ports.ts';
import type { FlowTrigger } from './trigger.ts';

export interface FactDeps {
  readonly carts: CartRepository;
  readonly checkouts: CheckoutRepository;
  readonly activity: ContactActivity;
}

type Vars = Record<string, unknown>;
const record = (value: unknown): Vars =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Vars) : {};

const linesOf = (context: Vars): Vars[] => {
  const raw =
    record(context.cart).lineItems ??
    record(context.cart).line_items ??
    record(context.checkout).line_items ??
    record(context.order).line_items;
  return Array.isArray(raw) ? raw.map(record) : [];
};

const amount = (value: unknown): number | undefined => {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
};

/** The order, checkout or cart total: as sent, else the sum of the lines' price × quantity. */
const totalOf = (context: Vars): number | undefined => {
  const sent =
    amount(record(context.order).total_price) ??
    amount(record(context.checkout).total_price) ??
    amount(record(context.cart).total_price);
  if (sent !== undefined) return sent;
  const lines = linesOf(context);
  if (lines.length === 0) return undefined;
  let total = 0;
  for (const line of lines) {
    const price = amount(line.price);
    if (price === undefined) return undefined;
    total += price * (amount(line.quantity) ?? 1);
  }
  return Math.round(total * 100) / 100;
};

/** The products a trigger is about: its lines' products, or the product it names (browse, back in stock). */
export const productIdsOf = (trigger: FlowTrigger): string[] => {
  const context = record(trigger.context);
  const ids = linesOf(context)
    .map((line) => line.product_id ?? line.productId)
    .filter((id): id is string | number => typeof id === 'string' || typeof id === 'number')
    .map(String);
  if (ids.length === 0 && trigger.subject.type === 'product') ids.push(trigger.subject.id);
  return [...new Set(ids)];
};

const eventFact = (trigger: FlowTrigger, path: string[]): unknown => {
  const context = record(trigger.context);
  const [head, ...rest] = path;
  if (rest.length === 0) {
    switch (head) {
      case 'kind':
        return trigger.kind;
      case 'subject_type':
        return trigger.subject.type;
      case 'subject_id':
        return trigger.subject.id;
      case 'endpoint':
        return trigger.cause.endpoint;
      case 'at':
        return trigger.at;
      case 'total':
        return totalOf(context);
      case 'status':
        return record(context.order).status;
      case 'previous_status':
        return record(context.order).previousStatus;
      case 'line_count':
        return linesOf(context).length;
      case 'product_ids':
        return productIdsOf(trigger);
    }
  }
  return pathValue(context, path);
};

/**
 * A `contact.<path>` fact of the contact record alone (no trigger): flows read it through `contactFact`, segments
 * (`shared/domain/segments/facts.ts`) directly, so both speak of the same fields.
 */
export const contactRecordFact = (contact: Customer | undefined, path: readonly string[]): unknown => {
  const [head, ...rest] = path;
  if (head === 'attributes') return pathValue(contact?.attributes, rest);
  if (rest.length > 0) return undefined;
  switch (head) {
    case 'email':
      return contact?.email;
    case 'phone':
      return contact?.phone;
    case 'customer_id':
      return contact?.originId;
    case 'first_name':
      return contact?.firstName;
    case 'last_name':
      return contact?.lastName;
    case 'country':
    case 'country_code':
      return contact?.countryCode;
    case 'locale':
      return contact?.locale;
    case 'city':
      return contact?.city;
    case 'tags':
      return contact?.platformTags ?? [];
    case 'category_tags':
      return (contact?.categoryTags ?? []).map((tag) => `${tag.category}:${tag.value}`);
    case 'email_consent':
      return contact?.emailConsent?.state;
    case 'sms_consent':
      return contact?.smsConsent?.state;
    case 'created_at':
      return contact?.createdAt;
    case 'known':
      return contact !== undefined;
    default:
      return undefined;
  }
};

/** Who the trigger names comes first (email, phone, customer id), then the contact record. */
const contactFact = (trigger: FlowTrigger, contact: Customer | undefined, path: string[]): unknown => {
  if (path.length === 1) {
    switch (path[0]) {
      case 'email':
        return trigger.contact.email ?? contact?.email;
      case 'phone':
        return trigger.contact.phone ?? contact?.phone;
      case 'customer_id':
        return trigger.contact.customerId ?? contact?.originId;
    }
  }
  return contactRecordFact(contact, path);
};

const isPaidOrderEntry = (entry: ContactActivityEntry) =>
  entry.kind === 'order_paid' || (entry.kind === 'order_status_changed' && entry.status === 'paid');

const ORDER_KINDS = new Set(['order_paid', 'order_fulfilled', 'order_status_changed', 'order_refunded']);

/**
 * The facts of one trigger for one contact. `email` is the lower-cased address the run is for (activity is recorded
 * by address). Lookups are memoised for the life of the resolver (one evaluation pass).
 */
export const factsFor = (
  deps: FactDeps,
  trigger: FlowTrigger,
  email: string | undefined,
  contact: Customer | undefined,
  /**
   * The trigger's own activity entry when it is being written alongside this evaluation (the trigger's first pass
   * writes it with the evaluation's records, `enter-run.ts`): counted in the history whether or not the write has
   * landed when it is read.
   */
  own?: ContactActivityEntry,
): Facts => {
  const memo = new Map<string, Promise<unknown>>();
  const once = <T>(key: string, load: () => Promise<T>): Promise<T> => {
    let hit = memo.get(key);
    if (!hit) {
      hit = load();
      memo.set(key, hit);
    }
    return hit as Promise<T>;
  };
  const history = () =>
    once('history', async () => {
      const entries = email ? await deps.activity.since(trigger.storeId, email, 0) : [];
      if (!own || entries.some((entry) => entry.triggerId === own.triggerId)) return entries;
      // Oldest first, as read (the key orders by time, then trigger id).
      return [...entries, own].sort((a, b) => a.at - b.at || (a.triggerId < b.triggerId ? -1 : 1));
    });
  const sinceTrigger = async () =>
    (await history()).filter((entry) => entry.at >= trigger.at && entry.triggerId !== trigger.id);
  const cart = () =>
    once('cart', async () =>
      trigger.subject.type === 'cart' ? deps.carts.get(trigger.storeId, trigger.subject.id) : undefined,
    );
  const checkout = () =>
    once('checkout', async () =>
      trigger.subject.type === 'checkout' ? deps.checkouts.get(trigger.storeId, trigger.subject.id) : undefined,
    );

  const activityFact = async (name: string | undefined): Promise<unknown> => {
    switch (name) {
      case 'order_paid_since_trigger': {
        const c = await cart();
        if (c?.closed?.by === 'payment') return true;
        const k = await checkout();
        if (k?.paidAt !== undefined) return true;
        return (await sinceTrigger()).some(isPaidOrderEntry);
      }
      case 'checkout_since_trigger': {
        const c = await cart();
        if (c && (c.reachedCheckoutAt !== undefined || c.closed?.by === 'checkout')) return true;
        return (await sinceTrigger()).some((entry) => entry.kind === 'checkout_recovery');
      }
      case 'cart_updated_since_trigger': {
        const c = await cart();
        return c !== undefined && c.closed === undefined && c.updatedAt > trigger.at;
      }
      case 'triggers_since_trigger':
        return (await sinceTrigger()).length;
      default:
        return undefined;
    }
  };

  return async (field) => {
    const [root, ...path] = field.split('.');
    switch (root) {
      case 'event':
        return path.length > 0 ? eventFact(trigger, path) : undefined;
      case 'custom':
        return pathValue(record(trigger.context).custom, path);
      case 'contact':
        if (path.length === 1 && path[0] === 'order_count') {
          const orders = new Set(
            (await history()).filter((entry) => ORDER_KINDS.has(entry.kind)).map((entry) => entry.subject.id),
          );
          return orders.size;
        }
        return contactFact(trigger, contact, path);
      case 'activity':
        return path.length === 1 ? activityFact(path[0]) : undefined;
      default:
        return undefined;
    }
  };
};
