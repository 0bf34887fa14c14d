/** Flows: definitions, presets, the engine, runs and explain. */
import { area, consumer, READ_ROUTE_USES, route } from '#shared/catalog/function-spec.ts';

export const FLOWS_FUNCTIONS = area('flows', [
  // Like webhook management, the routes rate-limit per store in the table. `presets` is declared before `{flowId}`:
  // API Gateway prefers the literal path anyway; the local gateway takes the first match.
  route('flow-presets', ['GET', 'main', '/api/v1/flows/presets'], READ_ROUTE_USES),
  route('flows-create', ['POST', 'main', '/api/v1/flows'], { table: 'readWrite' }),
  route('flows-list', ['GET', 'main', '/api/v1/flows'], READ_ROUTE_USES),
  route('flows-get', ['GET', 'main', '/api/v1/flows/{flowId}'], READ_ROUTE_USES),
  route('flows-update', ['PUT', 'main', '/api/v1/flows/{flowId}'], { table: 'readWrite' }),
  route('flows-delete', ['DELETE', 'main', '/api/v1/flows/{flowId}'], { table: 'readWrite' }),
  // Ten messages, each a few reads and writes and at most one SES call, in parallel. The timeout stays well under
  // the engine's email-claim takeover (150 s), itself under the queue's visibility timeout.
  consumer(
    'flow-worker',
    'flows',
    { table: 'readWrite', sendTo: ['flows', 'counters'], scheduler: true, mailer: true, masterKey: true },
    { timeoutSeconds: 60, memoryMb: 512, batchSize: 10, maxConcurrency: 20 },
  ),
  // The counts the ingest, flow, email-events and webhook-delivery workers' batches queue
  // (docs/attribution.md "What is counted, and where"):
  // Lambda gathers up to 2 s of messages, so a store's counter item is written once per batch, not once per worker
  // batch that counted for it. Each message costs a claim (one put); the ADDs are the batch's distinct counters.
  consumer(
    'counters-worker',
    'counters',
    { table: 'readWrite' },
    { timeoutSeconds: 10, memoryMb: 256, batchSize: 100, maxConcurrency: 5, batchingWindowSeconds: 2 },
  ),
  // Explain: reads, and the flows API's rate counters.
  route('flow-runs', ['GET', 'main', '/api/v1/flows/{flowId}/runs'], READ_ROUTE_USES),
  route('flow-activity', ['GET', 'main', '/api/v1/flow-activity'], READ_ROUTE_USES),
  // Attribution (docs/attribution.md): kept counters, read per day.
  route('stats', ['GET', 'main', '/api/v1/stats'], READ_ROUTE_USES),
  route('flow-stats', ['GET', 'main', '/api/v1/flows/{flowId}/stats'], READ_ROUTE_USES),
  // Backtest (docs/backtest.md): reads a period of the event history and replays it in memory, sending nothing. Its
  // replay stops at 24 s (under API Gateway's 29 s); the memory holds the replay's world (a month of events). It writes
  // its store's slot alone (one synchronous backtest per store at a time).
  route(
    'flow-backtest',
    ['POST', 'main', '/api/v1/flows/{flowId}/backtest'],
    { ...READ_ROUTE_USES, table: 'readWrite', replaysTimers: true },
    { timeoutSeconds: 29, memoryMb: 2048 },
  ),
  // The backtest as a job (docs/backtest.md "As a job"): started (202), run by the worker within Lambda's 15 minutes
  // (one job per invocation, two at once per deployment: bounded work), its progress and answer on the job.
  route('flow-backtest-start', ['POST', 'main', '/api/v1/flows/{flowId}/backtests'], {
    ...READ_ROUTE_USES,
    table: 'readWrite',
    sendTo: ['backtests'],
  }),
  route('flow-backtest-get', ['GET', 'main', '/api/v1/flows/{flowId}/backtests/{backtestId}'], READ_ROUTE_USES),
  consumer(
    'backtest-worker',
    'backtests',
    { table: 'readWrite', replaysTimers: true },
    { timeoutSeconds: 900, memoryMb: 2048, batchSize: 1, maxConcurrency: 2 },
  ),
]);
