/**
 * Ports: what the domain needs from the outside world. Adapters under `shared/adapters/` implement them with AWS;
 * tests may implement them in memory. Nothing here imports an AWS SDK.
 */
import type { LockoutPolicy, MainAccount, Session, SignInLink, SubAccount } from './accounts/account.ts';
import type { BackInStockSubscription } from './back-in-stock/subscription.ts';
import type { Cart } from './carts/cart.ts';
import type { Checkout } from './checkouts/checkout.ts';
import type { Customer } from './customers/customer.ts';
import type { BulkEntryResult, OutboundBulk, OutboundEmail, SentMessage, Suppression } from './email/message.ts';
import type { EventInterface } from './events/endpoints.ts';
import type { Flow } from './flows/flow.ts';
import type { FlowKind, FlowTrigger } from './flows/trigger.ts';
import type { ImportJob } from './imports/import-job.ts';
import type { Order } from './orders/order.ts';
import type { PageView } from './page-views/page-view.ts';
import type { Product } from './products/product.ts';
import type { AuthenticatedStore, Store, StoreType } from './stores/store.ts';
import type { Timer } from './timers/timer.ts';
import type { Delivery } from './webhooks/delivery.ts';
import type { WebhookTopic } from './webhooks/topics.ts';
import type { Webhook } from './webhooks/webhook.ts';

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

export interface StoreRepository {
  /** The store whose current key has this SHA-256, if any (a replaced key finds nothing). */
  findByKeyHash(keyHash: string): Promise<AuthenticatedStore | undefined>;
  get(storeId: string): Promise<Store | undefined>;
  create(store: Store): Promise<void>;
  /** Swaps the key: the old hash stops authenticating; fails if the store's key changed meanwhile. */
  replaceKey(storeId: string, oldKeyHash: string, next: { keyHash: string; keyCipher: string }): Promise<void>;
  list(): Promise<Store[]>;
}

/** An event as accepted at the edge, before the worker applies it. */
export interface AcceptedEvent {
  readonly storeId: string;
  readonly sourceId: string;
  readonly endpoint: string;
  readonly interface: EventInterface;
  /** Epoch milliseconds. */
  readonly acceptedAt: number;
  /** The store's type when the event was accepted (decides the `customer/marketing` webhook format). */
  readonly storeType?: StoreType;
}

/** The message on the ingest queue. `v` versions the message shape so old messages stay readable after a deploy. */
export interface IngestMessage extends AcceptedEvent {
  readonly v: 1;
  readonly data: Record<string, unknown>;
}

/** De-duplication record per store + `source_id` (spec: a `source_id` already seen answers 304). */
export interface EventLog {
  /**
   * Records the event once, with the hash of its data; `false` when this store already has the `source_id`. One
   * conditional write.
   */
  record(event: AcceptedEvent, dataHash: string): Promise<boolean>;
  /** Removes the record again (the event could not be queued, so a retry must be accepted). */
  forget(storeId: string, sourceId: string): Promise<void>;
  /** The store's record of `source_id` (when, and the hash of the data it came with); one consistent read. */
  recorded(storeId: string, sourceId: string): Promise<{ acceptedAt: number; dataHash?: string } | undefined>;
}

export interface IngestQueue {
  /** Queues the event in its entity's ordered group. */
  send(message: IngestMessage, groupKey: string): Promise<void>;
}

export interface RateLimiter {
  /** Counts one request against `limit` per second for `key`; shared by every concurrent instance. */
  take(key: string, limit: number): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }>;
  /**
   * True when this instance already saw `key`'s current window full: no I/O, so a flood is refused without touching
   * the table. False means "unknown", not "allowed".
   */
  isSaturated(key: string): boolean;
}

/** Optimistic concurrency: `save` fails with `RevisionConflict` when the stored revision is not `expectedRevision`. */
export class RevisionConflict extends Error {
  constructor(what: string) {
    super(`${what} was changed concurrently`);
    this.name = 'RevisionConflict';
  }
}

export interface CustomerRepository {
  get(storeId: string, originId: string): Promise<Customer | undefined>;
  /** Writes the customer if the stored revision is still `expectedRevision` (0: must not exist yet). */
  save(customer: Customer, expectedRevision: number): Promise<void>;
}

/** A store's contacts by email address (one person may be several contacts); unsubscribe and suppression use it. */
export interface ContactsByEmail {
  /** Every contact of the store with this address, compared case-insensitively. */
  find(storeId: string, email: string): Promise<Customer[]>;
}

export interface ProductRepository {
  get(storeId: string, productId: string): Promise<Product | undefined>;
  save(product: Product, expectedRevision: number): Promise<void>;
}

export interface Repository<T> {
  get(storeId: string, key: string): Promise<T | undefined>;
  /** Writes if the stored revision is still `expectedRevision` (0: must not exist yet); else `RevisionConflict`. */
  save(record: T, expectedRevision: number): Promise<void>;
}

export interface OrderRepository extends Repository<Order> {}

/** Carts, deleted ones included (closed tombstones, see `carts/cart.ts`). */
export interface CartRepository extends Repository<Cart> {}

export interface CheckoutRepository extends Repository<Checkout> {}

export interface PageViewRepository {
  add(view: PageView): Promise<void>;
}

export interface BackInStockRepository {
  /** Records (or refreshes) one subscription; the same person, product and variant is one subscription. */
  subscribe(subscription: BackInStockSubscription): Promise<void>;
  /** Every subscription to the product, all variants. */
  listForProduct(storeId: string, productId: string): Promise<BackInStockSubscription[]>;
  remove(subscription: BackInStockSubscription): Promise<void>;
}

/** One-time timers (EventBridge Scheduler `at()` schedules): one per name, re-setting it moves it. */
export interface Timers {
  set(timer: Timer): Promise<void>;
}

/** Where the worker hands the flows it decided to start (the flow engine consumes them). */
export interface FlowTriggers {
  /** Idempotent by `trigger.id`: the same event never starts the same trigger twice. */
  fire(trigger: FlowTrigger): Promise<void>;
}

/** A store's flow definitions (at most `LIMITS.flowsPerStore` each). */
export interface FlowRepository {
  get(storeId: string, flowId: string): Promise<Flow | undefined>;
  /** Every flow of the store, enabled or not, in id order. */
  list(storeId: string): Promise<Flow[]>;
  /** The store's enabled flows of one trigger kind (what a trigger of that kind is evaluated against). */
  listEnabled(storeId: string, kind: FlowKind): Promise<Flow[]>;
  /** Writes the flow if the stored revision is still `expectedRevision` (0: must not exist yet); else `RevisionConflict`. */
  save(flow: Flow, expectedRevision: number): Promise<void>;
  /** Removes the flow; `false` when the store had no flow with that id. */
  delete(storeId: string, flowId: string): Promise<boolean>;
}

/** Outgoing webhook events, delivered to the store's subscription for the topic (if any). */
export interface WebhookEvents {
  /** Idempotent by `eventId`. */
  emit(storeId: string, topic: WebhookTopic, body: Record<string, unknown>, eventId: string): Promise<void>;
}

/** A store's webhook subscriptions: at most one per topic. */
export interface WebhookRepository {
  listForStore(storeId: string): Promise<Webhook[]>;
  getByTopic(storeId: string, topic: WebhookTopic): Promise<Webhook | undefined>;
  /** Writes the topic's subscription, replacing any earlier one. */
  put(webhook: Webhook): Promise<void>;
  delete(storeId: string, topic: WebhookTopic): Promise<void>;
}

export interface DeliveryPage {
  readonly items: Delivery[];
  /** Opaque; absent on the last page. */
  readonly nextCursor?: string;
}

export interface DeliveryRepository extends Repository<Delivery> {
  /** Newest first. */
  listForWebhook(storeId: string, webhookId: string, page: { limit: number; cursor?: string }): Promise<DeliveryPage>;
}

/** The webhook delivery queue: a message per delivery to attempt. */
export interface DeliveryQueue {
  enqueue(storeId: string, deliveryId: string): Promise<void>;
}

/** Refuses URLs whose host resolves to loopback, private, link-local or metadata addresses (unless allowed). */
export interface AddressGuard {
  assertPublic(url: URL): Promise<void>;
}

export interface PostResult {
  readonly statusCode?: number;
  readonly responseExcerpt?: string;
  readonly latencyMs: number;
  readonly outcome: 'delivered' | 'rejected' | 'timeout' | 'error';
  readonly error?: string;
}

/** Sends one webhook request (the address guard applies at connect time, against DNS rebinding). */
export interface WebhookSender {
  post(url: string, body: string, headers: Readonly<Record<string, string>>): Promise<PostResult>;
}

/** A store's API key in clear: webhook bodies are signed with it (spec "Authentication" rule 5). */
export interface StoreKeys {
  keyOf(storeId: string): Promise<string | undefined>;
}

/** Import files (S3). */
export interface ImportFiles {
  put(key: string, content: Buffer): Promise<void>;
  /** The file's lines from `offset` (bytes) on, each with the byte offset just after it. */
  lines(key: string, offset: number): AsyncIterable<{ text: string; end: number }>;
  /** A URL the client PUTs a large file to, valid `expiresInSeconds`. */
  uploadUrl(key: string, expiresInSeconds: number): Promise<string>;
  exists(key: string): Promise<boolean>;
}

export interface ImportJobRepository extends Repository<ImportJob> {}

/** The import queue: a message per job (and per continuation of a long one). */
export interface ImportQueue {
  enqueue(storeId: string, jobId: string): Promise<void>;
}

/** "About once every 10 seconds": claims the store's import slot, or says when it frees up. */
export interface ImportThrottle {
  claim(storeId: string, seconds: number): Promise<{ claimed: true } | { claimed: false; retryAfterSeconds: number }>;
}

/** The mail engine (SESv2). Transient failures throw (the queue retries); permanent ones throw `PermanentError`. */
export interface Mailer {
  /** One rendered message (flows); answers SES's message id. */
  send(message: OutboundEmail): Promise<{ messageId: string }>;
  /** Up to `BULK_CHUNK_SIZE` entries sharing one content; per-entry results in entry order. */
  sendBulk(batch: OutboundBulk): Promise<BulkEntryResult[]>;
}

/** Addresses a store must not mail any more (unsubscribed, hard-bounced, complained). */
export interface Suppressions {
  /** The addresses (lower-cased) among `emails` that the store has suppressed. */
  suppressedAmong(storeId: string, emails: readonly string[]): Promise<Set<string>>;
  /** Records the suppression (idempotent; the first reason is kept). */
  suppress(entry: Suppression): Promise<void>;
}

/** Messages handed to SES, by message id (SES events are matched back through these). */
export interface SentMessages {
  record(messages: readonly SentMessage[]): Promise<void>;
  get(messageId: string): Promise<SentMessage | undefined>;
  /** True the first time it is called for the message (the spec's `initial_open` is the first open only). */
  firstOpen(messageId: string): Promise<boolean>;
}

// ── OAuth sign-in (issue 7): accounts, single-use links, back-office sessions, lockout ──

/** Main accounts, their sub-accounts (by username) and the stores each main account owns. */
export interface AccountRepository {
  createMain(account: MainAccount): Promise<void>;
  getMain(mainAccountId: string): Promise<MainAccount | undefined>;
  listMain(): Promise<MainAccount[]>;
  /** Throws a `conflict` AppError when the username is taken (usernames are unique across main accounts). */
  createSub(account: SubAccount): Promise<void>;
  getSub(username: string): Promise<SubAccount | undefined>;
  listSubs(mainAccountId: string): Promise<SubAccount[]>;
  setPasswordHash(username: string, passwordHash: string, updatedAt: number): Promise<void>;
  /** Makes the main account the store's owner (again: idempotent); a store owned by another stays theirs. */
  linkStore(storeId: string, mainAccountId: string): Promise<'linked' | 'no_store' | 'owned_by_other'>;
  /** The stores the main account owns, in store id order. */
  storesOf(mainAccountId: string): Promise<{ storeId: string; name: string }[]>;
}

export interface SignInLinks {
  create(link: SignInLink): Promise<void>;
  /** Marks the link used, at most once across all instances, and answers why when it cannot be used. */
  consume(
    tokenHash: string,
    now: number,
  ): Promise<{ outcome: 'consumed'; link: SignInLink } | { outcome: 'unknown' | 'used' | 'expired' }>;
}

export interface Sessions {
  create(session: Session): Promise<void>;
  /** The session while it is valid at `now`. */
  get(sessionHash: string, now: number): Promise<Session | undefined>;
  delete(sessionHash: string): Promise<void>;
}

/** Failed sign-ins per scope (`user#<main account of the calling store>#<username>`, `store#<storeId>`), shared by every instance. */
export interface SignInThrottle {
  /** Milliseconds until the scope may try again; 0 when it is not locked. */
  lockedFor(scope: string, now: number): Promise<number>;
  /** Counts a failure; the one that reaches `policy.maxFailures` locks the scope for `policy.lockMs`. */
  recordFailure(scope: string, now: number, policy: LockoutPolicy): Promise<void>;
  /** Forgets the scope's failures (a successful sign-in). */
  clear(scope: string): Promise<void>;
}
