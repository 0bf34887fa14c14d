/** `POST {front_url}/api/v1/headless/events`: the headless storefront interface (spec "Headless event interface"). */
import { ingestDeps } from '../../shared/adapters/ingest.ts';
import { parseHeadlessEvent } from '../../shared/domain/events/envelope.ts';
import { acceptEvent } from '../../shared/domain/ingest/accept-event.ts';
import { headlessReply } from '../../shared/http/responses.ts';
import { httpRoute } from '../../shared/http/route.ts';

export const handler = httpRoute({
  api: 'headless',
  parseBody: parseHeadlessEvent,
  handle: async ({ store, body }) =>
    (await acceptEvent(ingestDeps(), store, 'headless', body)) === 'accepted'
      ? headlessReply.accepted()
      : headlessReply.duplicate(),
});
