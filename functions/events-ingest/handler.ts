/** `POST {base_url}/api/v1/events`: the general event interface (spec "General event interface"). */

import { type GeneralEnvelope, parseGeneralEvent } from '#shared/domain/events/envelope.ts';
import { acceptEvent } from '#shared/domain/ingest/accept-event.ts';
import { countingRejections, countOutcome } from '#shared/http/event-metrics.ts';
import { eventsReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { ingestDeps } from '#shared/wiring/ingest.ts';

export const handler = httpRoute<GeneralEnvelope>({
  api: 'events',
  body: countingRejections('general', parseGeneralEvent),
  handle: async ({ store, body }) =>
    countOutcome('general', await acceptEvent(ingestDeps(), store, 'general', body)) === 'accepted'
      ? eventsReply.accepted()
      : eventsReply.duplicate(),
});
