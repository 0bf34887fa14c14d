/**
 * Worker-thread entry of the local DynamoDB (dynalite): serves on the port it is given and counts each operation in
 * the shared counters its parent reads (see `dynamodb.ts`).
 */
import type { AddressInfo } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
import dynalite from 'dynalite';
import { closeServer } from '#local/resources.ts';
import { DYNAMODB_OPERATIONS, type DynamoThreadData } from './dynamodb-operations.ts';

const data = workerData as DynamoThreadData;
const counters = new Int32Array(data.counters);
const server = dynalite({
  createTableMs: 0,
  deleteTableMs: 0,
  updateTableMs: 0,
  ...(data.path ? { path: data.path } : {}),
});
server.prependListener('request', (request: { headers: Record<string, string | string[] | undefined> }) => {
  const operation = String(request.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
  const index = DYNAMODB_OPERATIONS.indexOf(operation as (typeof DYNAMODB_OPERATIONS)[number]);
  Atomics.add(counters, index === -1 ? DYNAMODB_OPERATIONS.length : index, 1);
});
server.once('error', (error) => parentPort?.postMessage({ error: String(error) }));
server.listen(data.port, '127.0.0.1', () => {
  parentPort?.postMessage({ port: (server.address() as AddressInfo).port });
});
parentPort?.on('message', async (message) => {
  if (message !== 'stop') return;
  await closeServer(server);
  parentPort?.postMessage({ stopped: true });
});
