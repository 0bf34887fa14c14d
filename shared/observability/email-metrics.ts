/**
 * The email business metrics: bulk recipients accepted and rejected (by reason) once `POST /api/v1/sending` has stored
 * and queued its batch, and SES events by type once the email-events worker has handled one. Called by the handlers
 * with what the domain returned, so the domain stays free of metrics. Dimensions are fixed vocabularies (a rejection
 * reason, an SES event type), never a store or an address.
 */
import { type AcceptedBatch, rejectionCounts } from '#shared/domain/email/bulk-model.ts';
import type { SesEvent } from '#shared/domain/email/ses-event.ts';
import { BUSINESS_METRICS, metrics } from '#shared/observability.ts';

/** Counts an accepted batch's recipients: accepted, and rejected by reason (only the reasons that occurred). */
export const countBulkRecipients = (accepted: AcceptedBatch): void => {
  metrics.count(BUSINESS_METRICS.bulkRecipientsAccepted, accepted.totalAccepted);
  for (const [reason, count] of rejectionCounts(accepted))
    metrics.count(BUSINESS_METRICS.bulkRecipientsRejected, count, { reason });
};

/**
 * The `type` dimension of an SES event: the parsed type (`delivery`, `bounce`, `complaint`, `open`, `click`,
 * `subscription`, `reject`, `rendering_failure`), or SES's own for the ones not reported (`send`, `delivery_delay`).
 */
export const emailEventType = (event: SesEvent): string =>
  event.type === 'ignored'
    ? event.eventType
        .replace(/([a-z])([A-Z])/g, '$1_$2')
        .replace(/\s+/g, '_')
        .toLowerCase()
    : event.type;

/**
 * Counts one handled SES event. Called after the event was handled, so an attempt that failed and is retried by the
 * queue counts once; only a message delivered again after it was handled (SQS is at-least-once) counts twice.
 */
export const countEmailEvent = (event: SesEvent): void => {
  metrics.count(BUSINESS_METRICS.emailEvents, 1, { type: emailEventType(event) });
};
