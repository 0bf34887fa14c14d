/** Segments: definitions, live counts, members; their builds and timed re-evaluations. */
import { area, consumer, READ_ROUTE_USES, route } from '#shared/catalog/function-spec.ts';

export const SEGMENTS_FUNCTIONS = area('segments', [
  // Like flow management, the routes rate-limit per store in the table; create and edit queue a build.
  route('segments-create', ['POST', 'main', '/api/v1/segments'], { table: 'readWrite', sendTo: ['segments'] }),
  route('segments-list', ['GET', 'main', '/api/v1/segments'], READ_ROUTE_USES),
  route('segments-get', ['GET', 'main', '/api/v1/segments/{segmentId}'], READ_ROUTE_USES),
  route('segments-update', ['PUT', 'main', '/api/v1/segments/{segmentId}'], {
    table: 'readWrite',
    sendTo: ['segments'],
  }),
  route('segments-delete', ['DELETE', 'main', '/api/v1/segments/{segmentId}'], {
    table: 'readWrite',
    sendTo: ['segments'],
  }),
  route('segment-members', ['GET', 'main', '/api/v1/segments/{segmentId}/members'], READ_ROUTE_USES),
  // A build pass runs at most a minute (then queues its continuation), so two minutes bound a crashed one; ten
  // messages a batch: time-window re-evaluations are a few reads and writes each. Entries fire flow triggers and
  // re-evaluations are set on the timer wheel.
  consumer(
    'segment-worker',
    'segments',
    { table: 'readWrite', sendTo: ['segments', 'flows'], scheduler: true },
    { timeoutSeconds: 120, memoryMb: 512, batchSize: 10, maxConcurrency: 5 },
  ),
]);
