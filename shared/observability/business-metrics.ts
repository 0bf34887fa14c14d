/**
 * The business metrics, in one place: their names, what dimension each carries, and the CloudWatch namespace per
 * stage. Handlers emit them with `metrics.count(...)` (`shared/observability.ts`); the CDK dashboard and alarms read
 * the same names. Pure data, no Powertools or CDK import, so both sides can use it.
 *
 * Dimensions stay low-cardinality (an interface, a reason, an event type); never a store id or an address.
 */
export const BUSINESS_METRICS = {
  /** An event accepted by an event interface (dimension `interface`: general | headless). */
  eventsAccepted: 'EventsAccepted',
  /** An event whose `source_id` was seen before (the `code: 304` answer). */
  eventsDuplicate: 'EventsDuplicate',
  /** An event refused by validation (412), before anything was stored. */
  eventsRejected: 'EventsRejected',
  /**
   * An accepted event the worker could never apply (dimension `interface`), recorded as failed on the event and not
   * retried: an entity over its size budget, an item the table refuses.
   */
  eventsFailed: 'EventsFailed',
  /**
   * A store's marketing email refused because its bounce or complaint rate is over the guard's threshold (dimension
   * `by`: bulk | flow). Alarmed: an operator looks at the store (docs/sending.md, "Bounce and complaint guard").
   */
  marketingSendsPaused: 'MarketingSendsPaused',
  /**
   * A send claim taken over after it ran out (dimension `by`: bulk | flow): its worker crashed or timed out, maybe after
   * SES accepted the email, which then goes again. How often the at-least-once window is hit (docs/security.md).
   */
  sendClaimsRetaken: 'SendClaimsRetaken',
  /** A flow run started (dimension `kind`: the flow kind). */
  flowRunsStarted: 'FlowRunsStarted',
  /** An email a flow step sent. */
  flowEmailsSent: 'FlowEmailsSent',
  /** An email a flow step did not send (dimension `reason`: suppressed, no_consent, reentry, condition, …). */
  flowEmailsSkipped: 'FlowEmailsSkipped',
  /** A webhook delivery attempt. */
  webhookAttempts: 'WebhookAttempts',
  /** A webhook delivery attempt that failed: not 200, timeout or connection error. */
  webhookFailures: 'WebhookFailures',
  /** A webhook delivery that failed its last attempt and went to the DLQ. */
  webhookExhausted: 'WebhookExhausted',
  /** Bulk-send recipients accepted by `POST /api/v1/sending`. */
  bulkRecipientsAccepted: 'BulkRecipientsAccepted',
  /** Bulk-send recipients rejected (dimension `reason`: one of `REJECTION_REASONS`). */
  bulkRecipientsRejected: 'BulkRecipientsRejected',
  /**
   * An SES event handled by the email-events worker (dimension `type`: delivery, bounce, complaint, open, click,
   * subscription, reject, rendering_failure, send, delivery_delay).
   */
  emailEvents: 'EmailEvents',
} as const;

export type BusinessMetric = (typeof BUSINESS_METRICS)[keyof typeof BUSINESS_METRICS];

/** Each stage its own namespace, so prod and test in one account never add up. */
export const metricsNamespace = (stage: string): string => `Storeflow/${stage}`;
