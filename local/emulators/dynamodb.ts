/**
 * The local DynamoDB (dynalite) on a thread of its own. Deployed, DynamoDB's work is not on the functions' CPU; run on
 * the handlers' thread, dynalite took about a third of it under load (`npm run bench -- noisy --profile`), so every
 * busy test and benchmark measured the emulator as much as the service. Operation counts (e.g. `PutItem`), read by the
 * benchmarks and tests, are kept in shared memory so `calls()` answers at once.
 */
import type { EventLoopUtilization } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import {
  DYNAMODB_OPERATIONS,
  type DynamoThreadData,
  type ThreadRequest,
  type ThreadResponse,
} from './dynamodb-operations.ts';

export interface LocalDynamo {
  readonly port: number;
  /** Operations served so far, by name (those never called are absent). */
  calls(): Record<string, number>;
  /** The thread's event loop utilization so far (`performance.eventLoopUtilization`): how busy the emulator is. */
  utilization(): EventLoopUtilization;
  /** One call handed to the thread as a message, without a socket (`dynamodb-transport.ts`). */
  call(headers: Record<string, string>, body: string): Promise<ThreadResponse>;
  stop(): Promise<void>;
}

export const startLocalDynamo = async (options: { port: number; path?: string }): Promise<LocalDynamo> => {
  const counters = new SharedArrayBuffer((DYNAMODB_OPERATIONS.length + 1) * Int32Array.BYTES_PER_ELEMENT);
  const data: DynamoThreadData = { port: options.port, counters, ...(options.path ? { path: options.path } : {}) };
  const worker = new Worker(new URL('./dynamodb-thread.ts', import.meta.url), { workerData: data });
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the local DynamoDB thread exited (${code}) before listening`)));
    worker.once('message', (message: { port?: number; error?: string }) =>
      message.port ? resolve(message.port) : reject(new Error(`the local DynamoDB: ${message.error}`)),
    );
  }).catch(async (error) => {
    await worker.terminate();
    throw error;
  });
  worker.removeAllListeners('exit');
  worker.removeAllListeners('error');
  worker.on('error', (error) => process.stderr.write(`the local DynamoDB thread failed: ${String(error)}\n`));
  // Calls in flight through `call`, by id; a stopped thread fails the ones left.
  const pending = new Map<number, { resolve(response: ThreadResponse): void; reject(error: Error): void }>();
  let nextId = 0;
  worker.on('message', (message: ThreadResponse | { stopped?: boolean }) => {
    if (!('type' in message) || message.type !== 'response') return;
    pending.get(message.id)?.resolve(message);
    pending.delete(message.id);
    if (pending.size === 0) worker.unref();
  });
  // The thread must not keep a process alive that is done with it (e.g. a test file whose runtime was not stopped).
  worker.unref();
  const view = new Int32Array(counters);
  return {
    port,
    calls: () => {
      const out: Record<string, number> = {};
      DYNAMODB_OPERATIONS.forEach((name, i) => {
        const n = Atomics.load(view, i);
        if (n > 0) out[name] = n;
      });
      const others = Atomics.load(view, DYNAMODB_OPERATIONS.length);
      if (others > 0) out.unknown = others;
      return out;
    },
    utilization: () => worker.performance.eventLoopUtilization(),
    call(headers, body) {
      const id = ++nextId;
      const request: ThreadRequest = { type: 'request', id, headers, body };
      return new Promise<ThreadResponse>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        // A call in flight keeps the process alive, as its socket did over HTTP (the thread itself does not).
        if (pending.size === 1) worker.ref();
        worker.postMessage(request);
      });
    },
    stop: async () => {
      const stopped = new Promise<void>((resolve) => {
        worker.on('message', (message: { stopped?: boolean }) => message.stopped && resolve());
        worker.once('exit', () => resolve());
      });
      // Waiting for the thread keeps the process alive (nothing else may: no socket is open to it).
      worker.ref();
      worker.postMessage('stop');
      await stopped;
      await worker.terminate();
      for (const call of pending.values()) call.reject(new Error('the local DynamoDB stopped'));
      pending.clear();
    },
  };
};
