/**
 * The console's webhooks page: every subscription with its latest deliveries (each attempt), the endpoint's
 * success rate over them, re-sending one failed delivery, and re-sending every delivery that failed since a chosen
 * time. Re-sending is the API's (`retryDelivery`): a fresh ladder of attempts to the subscription's current URL.
 */
import type { Delivery } from '#shared/domain/webhooks/delivery.ts';
import { type ManageWebhookDeps, retryDelivery } from '#shared/domain/webhooks/manage-webhooks.ts';
import type { Webhook } from '#shared/domain/webhooks/webhook.ts';
import { isAppError, notFound, validationError } from '#shared/errors.ts';

/** Deliveries shown per subscription, newest first (the success rate is over these). */
export const DELIVERIES_SHOWN = 20;
/** At most this many deliveries are re-sent by one "re-send failed since" (the page says how many). */
export const MAX_RESENT = 500;
const SCAN_PAGE = 100;

export interface WebhookView {
  readonly webhook: Webhook;
  readonly deliveries: readonly Delivery[];
  /** Delivered ÷ finished (delivered or failed) among the deliveries shown; undefined when none finished. */
  readonly successRate: number | undefined;
}

export const webhooksView = async (
  deps: Pick<ManageWebhookDeps, 'webhooks' | 'deliveries'>,
  storeId: string,
): Promise<WebhookView[]> => {
  const webhooks = [...(await deps.webhooks.listForStore(storeId))].sort((a, b) => a.topic.localeCompare(b.topic));
  return Promise.all(
    webhooks.map(async (webhook) => {
      const { items } = await deps.deliveries.listForWebhook(storeId, webhook.id, { limit: DELIVERIES_SHOWN });
      const delivered = items.filter((d) => d.status === 'delivered').length;
      const finished = delivered + items.filter((d) => d.status === 'failed').length;
      return { webhook, deliveries: items, successRate: finished > 0 ? delivered / finished : undefined };
    }),
  );
};

/** Re-sends one failed or cancelled delivery of the store (409 for one pending or delivered). */
export const resendOne = (deps: ManageWebhookDeps, storeId: string, deliveryId: string) =>
  retryDelivery(deps, storeId, deliveryId);

/** What one "re-send failed since" did. */
export interface ResendSummary {
  readonly resent: number;
  /**
   * Deliveries not re-sent because they changed while this post ran (another request re-sent them first, the delivery
   * worker was writing them, or the subscription went away): each answered 409 by `retryDelivery`, none fails the post.
   */
  readonly skipped: number;
  /** True when failed deliveries remain beyond {@link MAX_RESENT}. */
  readonly more: boolean;
}

/**
 * Re-sends every failed delivery of the subscription created at or after `since` (epoch ms), newest first, at most
 * {@link MAX_RESENT}; answers how many were re-sent, how many were skipped for a concurrent change, and whether more
 * remain.
 */
export const resendFailedSince = async (
  deps: ManageWebhookDeps,
  storeId: string,
  webhookId: string,
  since: number,
): Promise<ResendSummary> => {
  if (!Number.isFinite(since)) throw validationError('since must be a date and time');
  if (!(await deps.webhooks.listForStore(storeId)).some((w) => w.id === webhookId)) {
    throw notFound('Webhook not found');
  }
  let resent = 0;
  let skipped = 0;
  let cursor: string | undefined;
  for (;;) {
    const page = await deps.deliveries.listForWebhook(storeId, webhookId, {
      limit: SCAN_PAGE,
      ...(cursor ? { cursor } : {}),
    });
    for (const delivery of page.items) {
      if (delivery.createdAt < since) return { resent, skipped, more: false };
      if (delivery.status !== 'failed') continue;
      if (resent >= MAX_RESENT) return { resent, skipped, more: true };
      try {
        await retryDelivery(deps, storeId, delivery.id);
        resent += 1;
      } catch (error) {
        // Changed since the page was read (re-sent by another request, written by the worker): not this post's to fail.
        if (!(isAppError(error) && error.kind === 'conflict')) throw error;
        skipped += 1;
      }
    }
    if (!page.nextCursor) return { resent, skipped, more: false };
    cursor = page.nextCursor;
  }
};
