/**
 * Worker-thread entry of the local DynamoDB (dynalite): serves on the port it is given and counts each operation in
 * the shared counters its parent reads (see `dynamodb.ts`). The parent's own SDK clients skip the socket: their calls
 * come as messages (`ThreadRequest`) that are handed to dynalite's request handler as they are, and its answer goes
 * back as a message (see `dynamodb-transport.ts`).
 */
import { EventEmitter } from 'node:events';
import type { AddressInfo } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
import dynalite from 'dynalite';
import { closeServer } from '#local/resources.ts';
import {
  DYNAMODB_OPERATIONS,
  type DynamoThreadData,
  type ThreadRequest,
  type ThreadResponse,
} from './dynamodb-operations.ts';

const data = workerData as DynamoThreadData;
const counters = new Int32Array(data.counters);
const server = dynalite({
  createTableMs: 0,
  deleteTableMs: 0,
  updateTableMs: 0,
  ...(data.path ? { path: data.path } : {}),
});
/** The operation a request names (`X-Amz-Target: DynamoDB_20120810.GetItem` → `GetItem`). */
const operationOf = (headers: Record<string, string | string[] | undefined>) =>
  String(headers['x-amz-target'] ?? '').split('.')[1] ?? '';

server.prependListener('request', (request: { headers: Record<string, string | string[] | undefined> }) => {
  const operation = operationOf(request.headers);
  const index = DYNAMODB_OPERATIONS.indexOf(operation as (typeof DYNAMODB_OPERATIONS)[number]);
  Atomics.add(counters, index === -1 ? DYNAMODB_OPERATIONS.length : index, 1);
});
server.once('error', (error) => parentPort?.postMessage({ error: String(error) }));
server.listen(data.port, '127.0.0.1', () => {
  parentPort?.postMessage({ port: (server.address() as AddressInfo).port });
});
/**
 * Batch calls (up to 25 writes or 100 reads each) are served one at a time, single-item calls at once. Deployed,
 * DynamoDB serves calls side by side across partitions, so one store's 2,000-recipient bulk send (80 batch writes, 8
 * in flight) does not hold another store's single `GetItem` back; dynalite interleaves every call's item operations
 * on this one thread, so with 8 batches in flight each other call waited behind some 200 item writes (the noisy
 * bench: victims' emails 3× slower in the second an attacker's bulk send was accepted).
 */
const BATCH_OPERATIONS = new Set(['BatchWriteItem', 'BatchGetItem']);
const batchQueue: ThreadRequest[] = [];
let batchInFlight = false;

const nextBatch = () => {
  const next = batchQueue.shift();
  batchInFlight = next !== undefined;
  if (next) serveNow(next, nextBatch);
};

const serveMessage = (message: ThreadRequest) => {
  if (!BATCH_OPERATIONS.has(operationOf(message.headers))) return serveNow(message);
  if (batchInFlight) return void batchQueue.push(message);
  batchInFlight = true;
  serveNow(message, nextBatch);
};

/** One call without a socket: what dynalite reads of a request, and what it writes of a response. */
const serveNow = (message: ThreadRequest, done?: () => void) => {
  const request = Object.assign(new EventEmitter(), { headers: message.headers, method: 'POST', url: '/' });
  const headers: Record<string, string> = {};
  const response = {
    statusCode: 200,
    setHeader(name: string, value: unknown) {
      headers[name.toLowerCase()] = String(value);
    },
    end(body?: string | Buffer) {
      const reply: ThreadResponse = {
        type: 'response',
        id: message.id,
        statusCode: response.statusCode,
        headers,
        body: body === undefined ? '' : String(body),
      };
      parentPort?.postMessage(reply);
      done?.();
    },
  };
  server.emit('request', request, response);
  request.emit('data', Buffer.from(message.body));
  request.emit('end');
};

parentPort?.on('message', async (message: 'stop' | ThreadRequest) => {
  if (typeof message === 'object' && message.type === 'request') return serveMessage(message);
  if (message !== 'stop') return;
  await closeServer(server);
  parentPort?.postMessage({ stopped: true });
});
