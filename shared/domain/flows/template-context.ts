/**
 * The variables a flow email's LiquidJS templates see. Built from the trigger (what the ingest worker and the timers
 * put in `FlowTrigger.context`, see `ingest/apply/*.ts` and `timers/fire-timer.ts`), the contact record when there is
 * one, the store and the message's unsubscribe link. Pure: no I/O.
 *
 * Names follow the event payloads (snake_case, as merchants send them) and Shopify's Liquid where they overlap
 * (`line_items`, `line_price`, `item_count`). Every variable is documented in docs/flows.md ("Template variables").
 *
 * Safety: values from events are data, not markup: the HTML part escapes every `{{ }}` output (see `render.ts`). Links
 * are the other way in, so every value under a key ending in `url` or `src` must be an absolute http(s) URL; anything
 * else (a `javascript:` link, a relative path) is dropped and renders empty.
 */
import type { Customer } from '#shared/domain/customers/model.ts';
import type { FlowKind, FlowTrigger } from './trigger.ts';

type Vars = Record<string, unknown>;

export interface TemplateLine extends Vars {
  readonly title: string;
  readonly quantity: number;
  readonly price?: string;
  /** `line_price` as sent, else `price` × `quantity` with the price's decimals. */
  readonly line_price?: string;
  /** `product_image_url` (carts, checkouts), `src` (orders) or `image_url`, whichever the line carries. */
  readonly image_url?: string;
  /** `product_url` or `url`. */
  readonly url?: string;
}

export interface TemplateContact extends Vars {
  readonly email?: string;
  readonly first_name?: string;
  readonly last_name?: string;
  /** First and last name joined; absent when neither is known. */
  readonly name?: string;
  readonly phone?: string;
  readonly country_code?: string;
  readonly city?: string;
  readonly locale?: string;
  /** The customer's id in the store's system. */
  readonly customer_id?: string;
  readonly tags: readonly string[];
  readonly category_tags: readonly { readonly category: string; readonly value: string }[];
  /** `subscribed`, `not_subscribed` or `unsubscribed`; absent when unknown. */
  readonly email_consent?: string;
}

export interface TemplateContext extends Vars {
  readonly contact: TemplateContact;
  readonly store: { readonly id: string; readonly name: string };
  /** Abandoned cart. */
  readonly cart?: Vars;
  /** Checkout recovery. */
  readonly checkout?: Vars;
  /** Order paid / fulfilled / status changed / refunded. */
  readonly order?: Vars;
  /** Browse recovery (the viewed product) and back-in-stock (the restocked product). */
  readonly product?: Vars;
  /** Browse recovery: the page viewed. */
  readonly page?: Vars;
  /** Custom notification: `flow/notify`'s `custom` object as sent. */
  readonly custom?: Vars;
  /** Custom notification: the scalar fields of `custom` (text, numbers, booleans) in order, for listing them. */
  readonly custom_fields?: readonly { readonly name: string; readonly label: string; readonly value: unknown }[];
  readonly trigger: {
    readonly kind: FlowKind;
    readonly subject_type: string;
    readonly subject_id: string;
    readonly at: string;
  };
  /** The one-click unsubscribe link of this message. */
  readonly unsubscribe_url: string;
}

export interface TemplateContextInput {
  readonly trigger: FlowTrigger;
  /** The contact record of the trigger's person, when the store has one. */
  readonly contact?: Customer | undefined;
  readonly store: { readonly id: string; readonly name: string };
  readonly unsubscribeUrl: string;
}

const isRecord = (value: unknown): value is Vars =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const record = (value: unknown): Vars => (isRecord(value) ? value : {});

const str = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;

const firstString = (...values: unknown[]): string | undefined => {
  for (const value of values) {
    const found = str(value);
    if (found !== undefined) return found;
  }
  return undefined;
};

/** `T` with its possibly-undefined properties made optional (what `exactOptionalPropertyTypes` wants). */
type Compact<T> = { [K in keyof T as undefined extends T[K] ? never : K]: T[K] } & {
  [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
};

/** Drops the properties whose value is `undefined`. */
const compact = <T extends Vars>(vars: T): Compact<T> =>
  Object.fromEntries(Object.entries(vars).filter(([, value]) => value !== undefined)) as Compact<T>;

const decimalsOf = (amount: string) => (amount.split('.')[1] ?? '').length;

const AMOUNT = /^-?\d+(\.\d+)?$/;

/** `price × quantity`, written with the price's own decimals (so `9.5 × 2` is `19.0`, `1200 × 3` is `3600`). */
const times = (price: string | undefined, quantity: number): string | undefined =>
  price !== undefined && AMOUNT.test(price) ? (Number(price) * quantity).toFixed(decimalsOf(price)) : undefined;

/** The sum of amounts, with the most decimals among them; undefined when any is missing or not a number. */
const sum = (amounts: readonly (string | undefined)[]): string | undefined => {
  if (amounts.length === 0 || amounts.some((amount) => amount === undefined || !AMOUNT.test(amount))) return undefined;
  const decimals = Math.max(...amounts.map((amount) => decimalsOf(amount as string)));
  return amounts.reduce((total, amount) => total + Number(amount), 0).toFixed(decimals);
};

const toLine = (raw: unknown): TemplateLine => {
  const line = record(raw);
  const quantity = typeof line.quantity === 'number' && Number.isFinite(line.quantity) ? line.quantity : 1;
  const price = str(line.price);
  return compact({
    ...line,
    title: firstString(line.title, line.name, line.variant_title) ?? '',
    quantity,
    price,
    line_price: str(line.line_price) ?? times(price, quantity),
    image_url: firstString(line.product_image_url, line.image_url, line.src, line.image),
    url: firstString(line.product_url, line.url),
  });
};

/** `line_items` normalised, plus `item_count` (sum of quantities) and, when every line has one, `lines_total`. */
const withLines = (rawLines: unknown) => {
  const line_items = Array.isArray(rawLines) ? rawLines.map(toLine) : [];
  return {
    line_items,
    item_count: line_items.reduce((count, line) => count + line.quantity, 0),
    lines_total: sum(line_items.map((line) => line.line_price)),
  };
};

const cartVars = (context: Vars): Vars | undefined => {
  if (!isRecord(context.cart)) return undefined;
  const cart = context.cart;
  const lines = withLines(cart.lineItems ?? cart.line_items);
  const firstLine = record(Array.isArray(cart.lineItems) ? cart.lineItems[0] : undefined);
  return compact({
    token: str(cart.token),
    checkout_url: firstString(cart.checkoutUrl, cart.checkout_url),
    ...lines,
    total_price: firstString(cart.total_price, lines.lines_total),
    currency: firstString(cart.currency, firstLine.currency),
  });
};

const checkoutVars = (context: Vars): Vars | undefined => {
  if (!isRecord(context.checkout)) return undefined;
  const { cartToken, ...checkout } = context.checkout;
  const lines = withLines(checkout.line_items);
  return compact({
    ...checkout,
    token: str(checkout.token),
    cart_token: str(cartToken ?? checkout.cart_token),
    ...lines,
    abandoned_checkout_url: str(checkout.abandoned_checkout_url),
    /** Alias: the link that resumes the checkout. */
    checkout_url: str(checkout.abandoned_checkout_url),
    total_price: firstString(checkout.total_price, lines.lines_total),
  });
};

const orderVars = (context: Vars): Vars | undefined => {
  if (!isRecord(context.order)) return undefined;
  const { previousStatus, ...order } = context.order;
  const lines = withLines(order.line_items);
  const tracked = lines.line_items.find((line) => str(line.tracking_url) ?? str(line.tracking_number));
  return compact({
    ...order,
    id: str(order.id),
    name: firstString(order.name, order.id),
    status: str(order.status),
    previous_status: str(previousStatus),
    ...lines,
    tracking_company: str(tracked?.tracking_company),
    tracking_number: str(tracked?.tracking_number),
    tracking_url: str(tracked?.tracking_url),
  });
};

const productVars = (context: Vars): Vars | undefined => {
  const product = record(context.product);
  const subscription = record(context.subscription);
  const id = firstString(product.id, context.productId);
  if (id === undefined) return undefined;
  return compact({
    id,
    title: firstString(product.title, subscription.product_name) ?? '',
    image_url: str(product.src),
    url: firstString(product.purchaseUrl, subscription.product_url),
    variant_id: str(context.variantId),
    variant_title: str(subscription.product_variant_name),
  });
};

/** Names and the like carried by the trigger itself, for contacts the store has no record of (yet). */
const personOf = (kind: FlowKind, context: Vars): Vars => {
  switch (kind) {
    case 'abandoned_cart': {
      const cart = record(context.cart);
      return { first_name: cart.firstName, last_name: cart.lastName };
    }
    case 'customer_created':
    case 'subscription_welcome': {
      const customer = record(context.customer);
      return {
        first_name: customer.firstName,
        last_name: customer.lastName,
        phone: customer.phone,
        country_code: customer.countryCode,
        customer_id: customer.originId,
      };
    }
    case 'back_in_stock':
      return record(context.subscription);
    case 'custom_notification':
      return context;
    case 'checkout_recovery':
    case 'order_paid':
    case 'order_fulfilled':
    case 'order_status_changed':
    case 'order_refunded': {
      const address = record(record(context.checkout ?? context.order).shipping_address);
      return { first_name: address.first_name, last_name: address.last_name };
    }
    default:
      return {};
  }
};

const contactVars = (trigger: FlowTrigger, customer: Customer | undefined): TemplateContact => {
  const person = personOf(trigger.kind, record(trigger.context));
  const first_name = firstString(customer?.firstName, person.first_name);
  const last_name = firstString(customer?.lastName, person.last_name);
  const name = [first_name, last_name].filter(Boolean).join(' ');
  return compact({
    email: firstString(trigger.contact.email, customer?.email),
    first_name,
    last_name,
    name: name === '' ? undefined : name,
    phone: firstString(customer?.phone, trigger.contact.phone, person.phone),
    country_code: firstString(customer?.countryCode, person.country_code),
    city: str(customer?.city),
    locale: str(customer?.locale),
    customer_id: firstString(customer?.originId, trigger.contact.customerId, person.customer_id),
    tags: customer?.platformTags ?? [],
    category_tags: customer?.categoryTags ?? [],
    email_consent: str(customer?.emailConsent?.state),
  });
};

const LINK_KEY = /(url|src)$/i;
const HTTP_URL = /^https?:\/\/[^\s/?#]+/i;

/**
 * Drops every link that is not an absolute http(s) URL, at any depth, so an event cannot put a `javascript:` or
 * `data:` link in a merchant's email. Also copies, so the render never shares objects with the trigger.
 */
const safeLinks = (value: unknown, key = ''): unknown => {
  if (Array.isArray(value)) return value.map((item) => safeLinks(item));
  if (isRecord(value)) {
    return Object.fromEntries(
      Object.entries(value)
        .map(([name, inner]) => [name, safeLinks(inner, name)] as const)
        .filter(([, inner]) => inner !== undefined),
    );
  }
  if (LINK_KEY.test(key) && typeof value === 'string') return HTTP_URL.test(value.trim()) ? value.trim() : undefined;
  return value;
};

/** `points_balance` → `Points balance`. */
const labelOf = (name: string) => {
  const words = name.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

const customFields = (custom: Vars) =>
  Object.entries(custom)
    .filter(([, value]) => ['string', 'number', 'boolean'].includes(typeof value))
    .map(([name, value]) => ({ name, label: labelOf(name), value }));

/** The LiquidJS context of one flow email (every variable is listed in docs/flows.md). */
export const buildTemplateContext = (input: TemplateContextInput): TemplateContext => {
  const { trigger } = input;
  const context = record(trigger.context);
  const isCustom = trigger.kind === 'custom_notification';
  // Links checked first, so the listed fields show what `custom` shows.
  const custom = safeLinks(record(context.custom)) as Vars;
  const about = compact({
    cart: trigger.kind === 'abandoned_cart' ? cartVars(context) : undefined,
    checkout: checkoutVars(context),
    order: orderVars(context),
    product: trigger.kind === 'browse_recovery' || trigger.kind === 'back_in_stock' ? productVars(context) : undefined,
    page: isRecord(context.page) ? context.page : undefined,
    custom: isCustom ? custom : undefined,
    custom_fields: isCustom ? customFields(custom) : undefined,
  });
  return {
    ...(safeLinks(about) as Vars),
    contact: safeLinks(contactVars(trigger, input.contact)) as TemplateContact,
    store: { id: input.store.id, name: input.store.name },
    trigger: {
      kind: trigger.kind,
      subject_type: trigger.subject.type,
      subject_id: trigger.subject.id,
      at: new Date(trigger.at).toISOString(),
    },
    unsubscribe_url: input.unsubscribeUrl,
  };
};
