/**
 * Single-table key design: every item has `pk`/`sk` (and `gsi1pk`/`gsi1sk`, `gsi2pk`/`gsi2sk` where an access pattern
 * needs them), an `entity` name and a `schema` version. Key composition lives here, one builder per entity
 * (the campaigns' in `campaign-keys.ts`, spread in).
 *
 * | entity   | pk                                   | sk        | gsi1 (pk / sk)                          | gsi2 (pk / sk)                       |
 * |----------|--------------------------------------|-----------|-----------------------------------------|--------------------------------------|
 * | store    | STORE#<storeId>                      | STORE     | STORES / <createdAt>#<storeId>          |                                      |
 * | apiKey   | APIKEY#<sha256>                      | APIKEY    |                                         |                                      |
 * | event    | STORE#<storeId>#EVENT#<sourceId>     | EVENT     |                                         |                                      |
 * | eventHistory | STORE#<storeId>#HISTORY#<yyyy-mm-dd> | PACK#<first acceptedAt, 15 digits>#<pack hash> |  |                        |
 * | rate     | RATE#<key>#<epochSecond>             | RATE      |                                         |                                      |
 * | customer | STORE#<storeId>#CUSTOMER#<originId>  | CUSTOMER  | STORE#<storeId>#CUSTOMERS / <createdAt>#<id> | STORE#<storeId>#EMAIL#<email> / <originId> |
 * | contactLookup (phone) | STORE#<storeId>#PHONE#<phone> | <originId> |                                 |                                      |
 * | contactLookup (name) | STORE#<storeId>#NAME#<first character> | <name term>#<originId> |               |                                      |
 * | product  | STORE#<storeId>#PRODUCT#<productId>  | PRODUCT   |                                         |                                      |
 * | order    | STORE#<storeId>#ORDER#<orderId>      | ORDER     |                                         |                                      |
 * | cart     | STORE#<storeId>#CART#<token>         | CART      |                                         |                                      |
 * | checkout | STORE#<storeId>#CHECKOUT#<token>     | CHECKOUT  |                                         |                                      |
 * | pageView | STORE#<storeId>#VIEWS#<contactKey>   | <viewedAt>#<sourceId> | (before the November 2026 cost pass; TTL, not read: views are in the event history) |
 * | backInStock | STORE#<storeId>#BIS#<productId>   | <variantId>#<subscriber> |                          |                                      |
 * | trigger  | STORE#<storeId>#TRIGGERS             | <triggerId> |                                       |                                      |
 * | webhookEvent | STORE#<storeId>#WEBHOOK-EVENTS   | <eventId> | (before the November 2026 cost pass; no TTL, not written or read: a subscribed topic's delivery holds the event) |  |
 * | webhook  | STORE#<storeId>#WEBHOOKS             | TOPIC#<topic> |                                     |                                      |
 * | delivery | STORE#<storeId>#DELIVERY#<id>        | DELIVERY  | STORE#<storeId>#WEBHOOK#<webhookId>#DELIVERIES / <createdAt>#<id> |  |
 * | exportPosition | STORE#<storeId>#EXPORT#<queryHash> | PAGE#<n> / COUNT |                           |                                      |
 * | contactCount | STORE#<storeId>#CONTACT-COUNTS#<level> | <bucket start, 12 digits> | (n; level 0 also d00–d29, level 3 s00–s59: contact-counts.ts) |
 * | contactCount (state) | STORE#<storeId>#CONTACT-COUNTS | STATE |                                     |                                      |
 * | attribution (email about a cart/checkout) | STORE#<storeId>#EMAILED#<type>#<id> | TOUCH |          |                                      |
 * | attribution (last click) | STORE#<storeId>#CLICK#<email> | TOUCH |                                   |                                      |
 * | attribution (order)  | STORE#<storeId>#ATTRIBUTED#<orderId> | ORDER |                                   |                                      |
 * | attribution (counted once) | STORE#<storeId>#COUNTED#<key> | ONCE |                                   |                                      |
 * | attribution (A/B exposure) | STORE#<storeId>#EXPOSURE#<email> | <flowId> |                           |                                      |
 * | attribution (unattributed order) | STORE#<storeId>#UNATTRIBUTED#<email> | <paidAt>#<orderId> (24 h) |  |                                      |
 * | stats    | STORE#<storeId>#STATS#<scope>        | <YYYY-MM-DD> |                                      |                                      |
 * | stats (month) | STORE#<storeId>#STATS#<scope>   | MONTH#<YYYY-MM> |                                   |                                      |
 * | stats (months kept) | STORE#<storeId>#STATS     | MONTHS    |                                         |                                      |
 * | countsClaim | COUNTS#<messageId>                | CLAIM     | (TTL a week: a counts message counted, queued-counts.ts) |                |
 * | importJob | STORE#<storeId>#IMPORT#<jobId>      | IMPORT    | STORE#<storeId>#IMPORTS / <createdAt>#<jobId> |                                |
 * | importSlot | STORE#<storeId>#IMPORT-SLOT        | SLOT      |                                         |                                      |
 * | backtestSlot | STORE#<storeId>#BACKTEST-SLOT    | SLOT      |                                         |                                      |
 * | runBudget | STORE#<storeId>#RUN-BUDGET         | BUDGET    |                                         |                                      |
 * | bulkBudget | STORE#<storeId>#BULK-BUDGET       | BUDGET    |                                         |                                      |
 * | suppression | STORE#<storeId>#SUPPRESSION#<email> | SUPPRESSION |                               |                                      |
 * | sentMessage | MESSAGE#<sesMessageId>            | MESSAGE   |                                         |                                      |
 * | contactEmail | STORE#<storeId>#EMAILS#<email>   | <sentAt>#<sesMessageId> |                           |                                      |
 * | sender   | STORE#<storeId>#SENDERS              | DOMAIN#<domain> |                                   |                                      |
 * | sendBatch | STORE#<storeId>#SEND#<batchId>      | BATCH     | STORE#<storeId>#SENDS / <createdAt>#<batchId> |                                |
 * | sendRecipientPack | STORE#<storeId>#SEND#<batchId> | RPACK#<index of its first recipient> |               |                                      |
 * | sendRecipient (before packs, read only) | STORE#<storeId>#SEND#<batchId> | RCPT#<index> |               |                                      |
 * | sendChunk | STORE#<storeId>#SEND#<batchId>      | CHUNK#<n> |                                         |                                      |
 * | senderDomain | SENDER-DOMAIN#<domain>           | OWNER     |                                         |                                      |
 * | senderSubdomain | SENDER-UNDER#<parent domain>  | <storeId>#<domain> |                                |                                      |
 * | flow     | STORE#<storeId>#FLOWS                | FLOW#<flowId> |                                     |                                      |
 * | flowRun  | STORE#<storeId>#RUN#<runId>          | RUN (the trigger packed; before schema 2 it also had gsi1 FLOW#<flowId>#RUNS and gsi2 CONTACT#<email>#RUNS keys, never queried) | | |
 * | flowEntry | STORE#<storeId>#FLOW#<flowId>#ENTRY#<entryKey> | ENTRY |                               |                                      |
 * | wheelEntry | STORE#<storeId>#WHEEL#<minute>    | <timer name> |                                      |                                      |
 * | waitingRuns | STORE#<storeId>#WAITING          | COUNT     |                                         |                                      |
 * | dailySends | STORE#<storeId>#DAILY-SENDS#<day> | COUNT     |                                         |                                      |
 * | reputation | STORE#<storeId>#REPUTATION#<day>  | COUNT     |                                         |                                      |
 * | openBacktests | STORE#<storeId>#BACKTESTS-OPEN | OPEN (job id → until, a version) |           |                                      |
 * | reputation (announced) | STORE#<storeId>#REPUTATION | ANNOUNCED (paused or not, version) |        |                                      |
 * | recentSends | STORE#<storeId>#RECENT-SENDS#<email> | SENDS (marketing send times, 7 days) |      |                                      |
 * | flowEvaluation | STORE#<storeId>#EVAL#<flowId>  | <at>#<triggerId> | STORE#<storeId>#CONTACT#<email>#EVALS / <at>#<flowId>#<triggerId> |   |
 * | contactActivity | STORE#<storeId>#ACTIVITY#<email> | <at>#<triggerId> |                           |                                      |
 * | segment  | STORE#<storeId>#SEGMENTS             | SEGMENT#<segmentId> |                               |                                      |
 * | segmentState | STORE#<storeId>#SEGMENT#<segmentId> | STATE (live count, build progress) |          |                                      |
 * | segmentMember | STORE#<storeId>#SEGMENT#<segmentId>#MEMBERS | <customer originId> |            |                                      |
 * | campaign | STORE#<storeId>#CAMPAIGN#<campaignId> | CAMPAIGN | STORE#<storeId>#CAMPAIGNS / <createdAt>#<id> |                            |
 * | campaignRecipient | STORE#<storeId>#CAMPAIGN#<campaignId>#RCPT | <customer originId> |              |                                      |
 * | activeCampaigns | STORE#<storeId>#CAMPAIGNS-ACTIVE | COUNT (scheduled or walking) |               |                                      |
 * | contactStats | STORE#<storeId>#CONTACT-STATS#<originId> | STATS (orders, last open/click) |      |                                      |
 * | recoveryMark | STORE#<storeId>#RECOVERY#<email>#<productId> | MARK |                             |                                      |
 * | account  | ACCOUNT#<username>                   | ACCOUNT   | ACCOUNT-OF#<mainAccountId> / <username>  |                                      |
 * | mainAccount | MAIN#<mainAccountId>              | MAIN      | MAINS / <createdAt>#<mainAccountId>     |                                      |
 * | store (owned) | (store's keys above)            |           |                                         | MAIN#<mainAccountId>#STORES / <storeId> |
 * | signInFailures | SIGNIN-FAILURES#<scope>        | COUNTER   |                                         |                                      |
 * | oauthLink | OAUTH#<sha256 of token>             | OAUTH     |                                         |                                      |
 * | session  | SESSION#<sha256 of session id>       | SESSION   |                                         |                                      |
 */
import { CAMPAIGN_KEYS } from './campaign-keys.ts';
import { FLOW_KEYS, pad } from './flow-keys.ts';

export type Entity =
  | 'store'
  | 'apiKey'
  | 'event'
  | 'eventHistory'
  | 'rate'
  | 'customer'
  | 'contactLookup'
  | 'product'
  | 'order'
  | 'cart'
  | 'checkout'
  /** Written before the November 2026 cost pass (a page view's own item); left to its TTL, not written or read any more. */
  | 'pageView'
  | 'backInStock'
  | 'trigger'
  /** Written before the November 2026 cost pass (every emitted webhook event); left as it is, not written or read any more. */
  | 'webhookEvent'
  | 'webhook'
  | 'delivery'
  | 'exportPosition'
  | 'contactCount'
  | 'attribution'
  | 'stats'
  | 'countsClaim'
  | 'importJob'
  | 'importSlot'
  | 'backtestSlot'
  | 'runBudget'
  | 'bulkBudget'
  | 'suppression'
  | 'sentMessage'
  | 'contactEmail'
  | 'sender'
  | 'sendBatch'
  | 'sendRecipient'
  | 'sendRecipientPack'
  | 'sendChunk'
  | 'senderDomain'
  | 'senderSubdomain'
  | 'flow'
  | 'flowRun'
  | 'backtestJob'
  | 'openBacktests'
  | 'wheelEntry'
  | 'waitingRuns'
  | 'dailySends'
  | 'reputation'
  | 'recentSends'
  | 'flowEntry'
  | 'flowEvaluation'
  | 'contactActivity'
  | 'recoveryMark'
  | 'segment'
  | 'segmentState'
  | 'segmentMember'
  | 'campaign'
  | 'campaignRecipient'
  | 'activeCampaigns'
  | 'contactStats'
  | 'account'
  | 'mainAccount'
  | 'signInFailures'
  | 'oauthLink'
  | 'session';

/** The partition-key prefix of every rate counter: functions that only count get UpdateItem on these keys alone. */
export const RATE_KEY_PREFIX = 'RATE#';

/**
 * The sort-key prefix of a history pack, whatever its layout (`historyPack`, `eventHistoryMinute`); the
 * one-item-per-event history before them had none, and is not read.
 */
export const HISTORY_PACK_PREFIX = 'PACK#';

export const keys = {
  store: (storeId: string) => ({ pk: `STORE#${storeId}`, sk: 'STORE' }),
  storeIndex: (createdAt: number, storeId: string) => ({
    gsi1pk: 'STORES',
    gsi1sk: `${pad(createdAt, 15)}#${storeId}`,
  }),
  apiKey: (keyHash: string) => ({ pk: `APIKEY#${keyHash}`, sk: 'APIKEY' }),
  event: (storeId: string, sourceId: string) => ({ pk: `STORE#${storeId}#EVENT#${sourceId}`, sk: 'EVENT' }),
  /** Applied events for backtests (docs/backtest.md): a store's UTC day of packs. */
  eventHistory: (storeId: string, day: string) => ({ pk: `STORE#${storeId}#HISTORY#${day}` }),
  /** One pack of the day, an item of its own: by its first event's acceptance, then a hash of its bytes. */
  historyPack: (storeId: string, day: string, firstAt: number, packHash: string) => ({
    pk: `STORE#${storeId}#HISTORY#${day}`,
    sk: `${HISTORY_PACK_PREFIX}${pad(firstAt, 15)}#${packHash}`,
  }),
  /**
   * The layout before the November 2026 cost pass, still read (nothing writes it since but the backtest bench's seeding, and tests): a
   * minute's item holding that minute's packs; a pack the minute's item could not take was an item of its own after
   * it (`overflow`: its first event).
   */
  eventHistoryMinute: (storeId: string, day: string, minute: number, overflow?: { at: number; sourceId: string }) => ({
    pk: `STORE#${storeId}#HISTORY#${day}`,
    sk: `${HISTORY_PACK_PREFIX}${pad(minute, 15)}${overflow ? `#${pad(overflow.at, 15)}#${overflow.sourceId}` : ''}`,
  }),
  rate: (key: string, epochSecond: number) => ({ pk: `${RATE_KEY_PREFIX}${key}#${epochSecond}`, sk: 'RATE' }),
  customer: (storeId: string, originId: string) => ({ pk: `STORE#${storeId}#CUSTOMER#${originId}`, sk: 'CUSTOMER' }),
  /** Contacts of a store in creation order (the contact export pages through this). */
  customerByCreation: (storeId: string, createdAt: number, id: string) => ({
    gsi1pk: `STORE#${storeId}#CUSTOMERS`,
    gsi1sk: `${pad(createdAt, 12)}#${id}`,
  }),
  /** The `gsi1sk` range of contacts created within [start, end] seconds (both inclusive). */
  customersCreatedBetween: (storeId: string, start: number | undefined, end: number | undefined) => ({
    gsi1pk: `STORE#${storeId}#CUSTOMERS`,
    from: `${pad(start ?? 0, 12)}#`,
    to: `${end === undefined ? '9'.repeat(12) : pad(end, 12)}#\uffff`,
  }),
  /** Remembered page starts and the total of one export query shape (page size and bounds). */
  exportPositions: (storeId: string, queryHash: string) => ({ pk: `STORE#${storeId}#EXPORT#${queryHash}` }),
  exportPage: (storeId: string, queryHash: string, page: number) => ({
    pk: `STORE#${storeId}#EXPORT#${queryHash}`,
    sk: `PAGE#${pad(page, 9)}`,
  }),
  exportCount: (storeId: string, queryHash: string) => ({ pk: `STORE#${storeId}#EXPORT#${queryHash}`, sk: 'COUNT' }),
  /** A contact counter: contacts created within one bucket (day, hour, minute or second) of `level`. */
  contactCount: (storeId: string, level: number, bucketStart: number) => ({
    pk: `STORE#${storeId}#CONTACT-COUNTS#${level}`,
    sk: pad(bucketStart, 12),
  }),
  /** The counters of `level` whose buckets start within [from, to]. */
  contactCountRange: (storeId: string, level: number, from: number, to: number) => ({
    pk: `STORE#${storeId}#CONTACT-COUNTS#${level}`,
    from: pad(from, 12),
    to: pad(to, 12),
  }),
  /** Whether the store's contact counters hold every contact (`exact`), or are being rebuilt or stale. */
  contactCountState: (storeId: string) => ({ pk: `STORE#${storeId}#CONTACT-COUNTS`, sk: 'STATE' }),
  /** The latest flow email about a cart or checkout (recovered orders). */
  emailedSubject: (storeId: string, type: string, id: string) => ({
    pk: `STORE#${storeId}#EMAILED#${type}#${id}`,
    sk: 'TOUCH',
  }),
  /** A contact's latest click on a Storeflow email (influenced orders). */
  lastClick: (storeId: string, email: string) => ({ pk: `STORE#${storeId}#CLICK#${email.toLowerCase()}`, sk: 'TOUCH' }),
  /** An order's attribution, decided once. */
  attributedOrder: (storeId: string, orderId: string) => ({
    pk: `STORE#${storeId}#ATTRIBUTED#${orderId}`,
    sk: 'ORDER',
  }),
  /**
   * An order of the contact paid with nothing to credit, which a late click may still influence; newest first by
   * its sort key (the payment's epoch ms, zero-padded, then the order id).
   */
  unattributedOrder: (storeId: string, email: string, paidAt: number, orderId: string) => ({
    pk: `STORE#${storeId}#UNATTRIBUTED#${email.toLowerCase()}`,
    sk: `${String(paidAt).padStart(15, '0')}#${orderId}`,
  }),
  /** A contact's latest run of a flow with A/B groups (one item per flow, all read at once when they pay). */
  exposure: (storeId: string, email: string, flowId: string) => ({
    pk: `STORE#${storeId}#EXPOSURE#${email.toLowerCase()}`,
    sk: flowId,
  }),
  /** A counts message the counters worker counted (`queued-counts.ts`): not a store's, so no store in its key. */
  countsClaim: (messageId: string) => ({ pk: `COUNTS#${messageId}`, sk: 'CLAIM' }),
  /** An occurrence counted once (a click event). */
  countedOnce: (storeId: string, key: string) => ({ pk: `STORE#${storeId}#COUNTED#${key}`, sk: 'ONCE' }),
  /**
   * Counters of one scope (`store`, `flow#<id>` with its steps' as `step#<stepId>#<counter>`, `batch#<id>`, `events`,
   * `webhooks`) and UTC day.
   */
  stats: (storeId: string, scope: string, day: string) => ({ pk: `STORE#${storeId}#STATS#${scope}`, sk: day }),
  /** The same counters summed per month: `MONTH#` sorts after every day, so a range of days never reads a month. */
  statsMonth: (storeId: string, scope: string, month: string) => ({
    pk: `STORE#${storeId}#STATS#${scope}`,
    sk: `MONTH#${month}`,
  }),
  /** Present when the store's month counters hold every count of their days. */
  statsMonthsKept: (storeId: string) => ({ pk: `STORE#${storeId}#STATS`, sk: 'MONTHS' }),
  importJob: (storeId: string, jobId: string) => ({ pk: `STORE#${storeId}#IMPORT#${jobId}`, sk: 'IMPORT' }),
  /** A store's import jobs in creation order (listed newest first by the console). */
  importJobByStore: (storeId: string, createdAt: number, jobId: string) => ({
    gsi1pk: `STORE#${storeId}#IMPORTS`,
    gsi1sk: `${pad(createdAt, 15)}#${jobId}`,
  }),
  importSlot: (storeId: string) => ({ pk: `STORE#${storeId}#IMPORT-SLOT`, sk: 'SLOT' }),
  backtestSlot: (storeId: string) => ({ pk: `STORE#${storeId}#BACKTEST-SLOT`, sk: 'SLOT' }),
  /** The store's flow-run start reservations (`shared/domain/flows/admission.ts`). */
  runBudget: (storeId: string) => ({ pk: `STORE#${storeId}#RUN-BUDGET`, sk: 'BUDGET' }),
  /** The store's bulk recipients budget (`shared/domain/email/recipient-budget.ts`). */
  bulkBudget: (storeId: string) => ({ pk: `STORE#${storeId}#BULK-BUDGET`, sk: 'BUDGET' }),
  /** Contacts by email address (flows, suppression and unsubscribe look people up by address). */
  customerByEmail: (storeId: string, email: string, originId: string) => ({
    gsi2pk: `STORE#${storeId}#EMAIL#${email.toLowerCase()}`,
    gsi2sk: originId,
  }),
  /**
   * The console's contact search (docs/contacts.md "Search"): one item per contact and normalised phone, and per
   * contact and name term (`first last`, `last first`), written with the contact when they change. Name terms are
   * spread over one partition per first character, so a prefix always names its partition.
   */
  contactByPhone: (storeId: string, phone: string, originId: string) => ({
    pk: `STORE#${storeId}#PHONE#${phone}`,
    sk: originId,
  }),
  contactByName: (storeId: string, term: string, originId: string) => ({
    pk: `STORE#${storeId}#NAME#${[...term][0] ?? ''}`,
    sk: `${term}#${originId}`,
  }),
  /** The partition and sort-key prefix of the name terms starting with `prefix` (not empty). */
  contactsByNamePrefix: (storeId: string, prefix: string) => ({
    pk: `STORE#${storeId}#NAME#${[...prefix][0] ?? ''}`,
    prefix,
  }),
  product: (storeId: string, productId: string) => ({ pk: `STORE#${storeId}#PRODUCT#${productId}`, sk: 'PRODUCT' }),
  order: (storeId: string, orderId: string) => ({ pk: `STORE#${storeId}#ORDER#${orderId}`, sk: 'ORDER' }),
  cart: (storeId: string, token: string) => ({ pk: `STORE#${storeId}#CART#${token}`, sk: 'CART' }),
  checkout: (storeId: string, token: string) => ({ pk: `STORE#${storeId}#CHECKOUT#${token}`, sk: 'CHECKOUT' }),
  /** Every back-in-stock subscription to a product (all variants). */
  backInStockByProduct: (storeId: string, productId: string) => ({ pk: `STORE#${storeId}#BIS#${productId}` }),
  backInStock: (storeId: string, productId: string, variantId: string, subscriber: string) => ({
    pk: `STORE#${storeId}#BIS#${productId}`,
    sk: `${variantId}#${subscriber}`,
  }),
  triggers: (storeId: string) => ({ pk: `STORE#${storeId}#TRIGGERS` }),
  trigger: (storeId: string, triggerId: string) => ({ pk: `STORE#${storeId}#TRIGGERS`, sk: triggerId }),
  /** A store's webhook subscriptions, one item per topic. */
  webhooks: (storeId: string) => ({ pk: `STORE#${storeId}#WEBHOOKS` }),
  webhook: (storeId: string, topic: string) => ({ pk: `STORE#${storeId}#WEBHOOKS`, sk: `TOPIC#${topic}` }),
  delivery: (storeId: string, deliveryId: string) => ({
    pk: `STORE#${storeId}#DELIVERY#${deliveryId}`,
    sk: 'DELIVERY',
  }),
  /** A subscription's deliveries in creation order (listed newest first). */
  deliveryByWebhook: (storeId: string, webhookId: string, createdAt: number, deliveryId: string) => ({
    gsi1pk: `STORE#${storeId}#WEBHOOK#${webhookId}#DELIVERIES`,
    gsi1sk: `${pad(createdAt, 15)}#${deliveryId}`,
  }),
  // ── Email: suppression list, sent messages, senders, bulk batches ──
  suppression: (storeId: string, email: string) => ({
    pk: `STORE#${storeId}#SUPPRESSION#${email.toLowerCase()}`,
    sk: 'SUPPRESSION',
  }),
  sentMessage: (messageId: string) => ({ pk: `MESSAGE#${messageId}`, sk: 'MESSAGE' }),
  /** The emails sent to an address, in send order, each with what SES reported of it (the console's contact timeline). */
  contactEmails: (storeId: string, email: string) => ({ pk: `STORE#${storeId}#EMAILS#${email.toLowerCase()}` }),
  contactEmail: (storeId: string, email: string, sentAt: number, messageId: string) => ({
    pk: `STORE#${storeId}#EMAILS#${email.toLowerCase()}`,
    sk: `${pad(sentAt, 15)}#${messageId}`,
  }),
  senders: (storeId: string) => ({ pk: `STORE#${storeId}#SENDERS` }),
  sender: (storeId: string, domain: string) => ({
    pk: `STORE#${storeId}#SENDERS`,
    sk: `DOMAIN#${domain.toLowerCase()}`,
  }),
  sendBatch: (storeId: string, batchId: string) => ({ pk: `STORE#${storeId}#SEND#${batchId}`, sk: 'BATCH' }),
  /** A store's bulk batches in creation order (listed newest first by the console). */
  sendBatchByStore: (storeId: string, createdAt: number, batchId: string) => ({
    gsi1pk: `STORE#${storeId}#SENDS`,
    gsi1sk: `${pad(createdAt, 15)}#${batchId}`,
  }),
  /** A batch's recipients in request order (`index` is the position in `recipients`). */
  sendRecipients: (storeId: string, batchId: string) => ({ pk: `STORE#${storeId}#SEND#${batchId}` }),
  /**
   * A batch's recipients packed, one item per planned chunk (split when large), keyed by the index of its first
   * recipient (`send-recipient-packs.ts`).
   */
  sendRecipientPacks: (storeId: string, batchId: string) => ({
    pk: `STORE#${storeId}#SEND#${batchId}`,
    skPrefix: 'RPACK#',
  }),
  sendRecipientPack: (storeId: string, batchId: string, first: number) => ({
    pk: `STORE#${storeId}#SEND#${batchId}`,
    sk: `RPACK#${pad(first, 5)}`,
  }),
  /** One recipient per item: how batches were stored before packs (still read for batches stored then). */
  sendRecipient: (storeId: string, batchId: string, index: number) => ({
    pk: `STORE#${storeId}#SEND#${batchId}`,
    sk: `RCPT#${pad(index, 5)}`,
  }),
  /** Progress of one queued chunk of a batch (its send lease, then done): a redelivered chunk is not sent twice. */
  sendChunk: (storeId: string, batchId: string, chunk: number) => ({
    pk: `STORE#${storeId}#SEND#${batchId}`,
    sk: `CHUNK#${pad(chunk, 4)}`,
  }),
  /** Which store registered a sending domain (SES identities are account-wide: one store per domain). */
  senderDomain: (domain: string) => ({ pk: `SENDER-DOMAIN#${domain.toLowerCase()}`, sk: 'OWNER' }),
  /** Under a parent domain: one item per subdomain registered below it, so registering the parent can find them. */
  senderSubdomain: (parent: string, storeId: string, domain: string) => ({
    pk: `SENDER-UNDER#${parent.toLowerCase()}`,
    sk: `${storeId}#${domain.toLowerCase()}`,
  }),
  ...FLOW_KEYS,
  // ── Segments: definitions, live count and build progress, members, the facts they read ──
  segments: (storeId: string) => ({ pk: `STORE#${storeId}#SEGMENTS` }),
  segment: (storeId: string, segmentId: string) => ({ pk: `STORE#${storeId}#SEGMENTS`, sk: `SEGMENT#${segmentId}` }),
  /** The segment's live member count (atomic ADD) and its build's progress, apart from the revisioned definition. */
  segmentState: (storeId: string, segmentId: string) => ({ pk: `STORE#${storeId}#SEGMENT#${segmentId}`, sk: 'STATE' }),
  /** A segment's members in customer id order: one partition, paged by `Query` (campaigns iterate it). */
  segmentMembers: (storeId: string, segmentId: string) => ({ pk: `STORE#${storeId}#SEGMENT#${segmentId}#MEMBERS` }),
  segmentMember: (storeId: string, segmentId: string, customerId: string) => ({
    pk: `STORE#${storeId}#SEGMENT#${segmentId}#MEMBERS`,
    sk: customerId,
  }),
  ...CAMPAIGN_KEYS,
  /** A contact's order totals and last email engagement, kept by the ingest and email-events workers. */
  contactStats: (storeId: string, customerId: string) => ({
    pk: `STORE#${storeId}#CONTACT-STATS#${customerId}`,
    sk: 'STATS',
  }),
  // ── OAuth sign-in: accounts, single-use links, back-office sessions ──
  account: (username: string) => ({ pk: `ACCOUNT#${username.toLowerCase()}`, sk: 'ACCOUNT' }),
  accountsOf: (mainAccountId: string, username: string) => ({
    gsi1pk: `ACCOUNT-OF#${mainAccountId}`,
    gsi1sk: username.toLowerCase(),
  }),
  mainAccount: (mainAccountId: string) => ({ pk: `MAIN#${mainAccountId}`, sk: 'MAIN' }),
  mainAccountIndex: (createdAt: number, mainAccountId: string) => ({
    gsi1pk: 'MAINS',
    gsi1sk: `${pad(createdAt, 15)}#${mainAccountId}`,
  }),
  /** On a store item: the main account that owns it (the stores a sub-account may open). */
  storesOfAccount: (mainAccountId: string, storeId: string) => ({
    gsi2pk: `MAIN#${mainAccountId}#STORES`,
    gsi2sk: storeId,
  }),
  /** Failed sign-ins of one scope (`user#<main account>#<username>`, `store#<storeId>`) in the current window. */
  signInFailures: (scope: string) => ({ pk: `SIGNIN-FAILURES#${scope}`, sk: 'COUNTER' }),
  oauthLink: (tokenHash: string) => ({ pk: `OAUTH#${tokenHash}`, sk: 'OAUTH' }),
  session: (sessionHash: string) => ({ pk: `SESSION#${sessionHash}`, sk: 'SESSION' }),
} as const;

/** Attributes every item carries besides its keys. */
export const itemMeta = (entity: Entity, schema = 1) => ({ entity, schema });

/** Strips the storage-only attributes from an item read back. */
export const withoutMeta = <T>(item: Record<string, unknown>): T => {
  const { pk, sk, gsi1pk, gsi1sk, gsi2pk, gsi2sk, entity, schema, expiresAt, ...rest } = item;
  return rest as T;
};
