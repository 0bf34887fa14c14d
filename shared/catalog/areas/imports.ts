/** Batch imports. */
import { area, consumer, route } from '#shared/catalog/function-spec.ts';

export const IMPORTS_FUNCTIONS = area('imports', [
  route(
    'batch-import',
    ['POST', 'main', '/api/v1/batch/customers'],
    { table: 'readWrite', importsBucket: 'write', sendTo: ['imports'] },
    { timeoutSeconds: 29, memoryMb: 1024 },
  ),
  route('batch-upload-url', ['POST', 'main', '/api/v1/batch/customers/uploads'], {
    table: 'readWrite',
    importsBucket: 'write',
  }),
  route('batch-upload-start', ['POST', 'main', '/api/v1/batch/customers/uploads/{jobId}/start'], {
    table: 'readWrite',
    importsBucket: 'read',
    sendTo: ['imports'],
  }),
  route('batch-job', ['GET', 'main', '/api/v1/batch/{jobId}'], { table: 'read' }),
  // Five minutes a run; an import that needs longer continues in a new message from where it stopped (it watches
  // its remaining time), so the timeout bounds only how long a crashed run holds its message.
  // Each contact written is evaluated against the store's segments: time-window re-evaluations go on the timer
  // wheel (its schedules); an import starts no flow, so no trigger is sent.
  consumer(
    'import-worker',
    'imports',
    { table: 'readWrite', importsBucket: 'read', sendTo: ['imports', 'webhooks'], scheduler: true },
    { timeoutSeconds: 300, memoryMb: 512, batchSize: 1, maxConcurrency: 5 },
  ),
]);
