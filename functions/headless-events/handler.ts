/**
 * `POST {front_url}/api/v1/headless/events`: the headless storefront interface (spec "Headless event interface"), with
 * the store key or, from the store's storefront pages, its publishable key.
 */

import { type HeadlessEnvelope, parseHeadlessEvent } from '#shared/domain/events/envelope.ts';
import { checkPublicLinks } from '#shared/domain/events/public-links.ts';
import { acceptEvent } from '#shared/domain/ingest/accept-event.ts';
import { countingRejections, countOutcome } from '#shared/http/event-metrics.ts';
import { headlessReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { ingestDeps } from '#shared/wiring/ingest.ts';

export const handler = httpRoute<HeadlessEnvelope>({
  api: 'headless',
  // Storefront pages post with the store's publishable key, from the origins the store allows.
  publishableKey: true,
  body: countingRejections('headless', parseHeadlessEvent),
  handle: async ({ store, body }) => {
    // What a public client sends must not turn the store's email into someone else's links.
    if (store.publishable) checkPublicLinks(store.publishable, body.data);
    return countOutcome('headless', await acceptEvent(ingestDeps(), store, 'headless', body)) === 'accepted'
      ? headlessReply.accepted()
      : headlessReply.duplicate();
  },
});
