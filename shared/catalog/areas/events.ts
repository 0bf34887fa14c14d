/** Events: the store events' path from the edge to the table, and the timers they set. */
import { area, consumer, EVENTS, READ_ROUTE_USES, route } from '#shared/catalog/function-spec.ts';

export const EVENTS_FUNCTIONS = area('events', [
  route('events-ingest', ['POST', 'main', '/api/v1/events'], { table: 'readWrite', sendTo: ['ingest'] }, EVENTS),
  route(
    'headless-events',
    ['POST', 'front', '/api/v1/headless/events'],
    { table: 'readWrite', sendTo: ['ingest'] },
    EVENTS,
  ),
  // The CORS preflight of storefront pages posting with the publishable key: answers headers, touches nothing.
  route('headless-events-preflight', ['OPTIONS', 'front', '/api/v1/headless/events'], {}),
  // What became of one event (failed ones say why); reads, and its own rate counters.
  route('event-status', ['GET', 'main', '/api/v1/events'], READ_ROUTE_USES),
  route(
    'contacts-export',
    ['GET', 'front', '/api/v1/audience'],
    { table: 'readWrite', exportPages: true },
    { timeoutSeconds: 29, memoryMb: 1024 },
  ),
  // FIFO: at most one batch per message group in flight, so the groups (store + entity) bound the useful concurrency.
  consumer(
    'ingest-worker',
    'ingest',
    // A public sign-up's confirmation email is sent here (SES, a link signed with a key derived from the master key).
    { table: 'readWrite', scheduler: true, sendTo: ['webhooks', 'flows', 'counters'], mailer: true, masterKey: true },
    { timeoutSeconds: 30, memoryMb: 512, batchSize: 10, maxConcurrency: 20 },
  ),
  consumer(
    'timer-worker',
    'timers',
    // Flow waits go to the flows queue; contacts whose segment time window flipped to the segments queue; due
    // campaigns to the campaigns queue.
    { table: 'readWrite', sendTo: ['flows', 'segments', 'campaigns'] },
    { timeoutSeconds: 30, memoryMb: 512, batchSize: 10, maxConcurrency: 10 },
  ),
]);
