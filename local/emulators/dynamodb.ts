/**
 * The local DynamoDB (dynalite) on a thread of its own. Deployed, DynamoDB's work is not on the functions' CPU; run on
 * the handlers' thread, dynalite took about a third of it under load (`npm run bench -- noisy --profile`), so every
 * busy test and benchmark measured the emulator as much as the service. Operation counts (e.g. `PutItem`), read by the
 * benchmarks and tests, are kept in shared memory so `calls()` answers at once.
 */
import { Worker } from 'node:worker_threads';
import { DYNAMODB_OPERATIONS, type DynamoThreadData } from './dynamodb-operations.ts';

export interface LocalDynamo {
  readonly port: number;
  /** Operations served so far, by name (those never called are absent). */
  calls(): Record<string, number>;
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
    stop: async () => {
      const stopped = new Promise<void>((resolve) => {
        worker.once('message', () => resolve());
        worker.once('exit', () => resolve());
      });
      worker.postMessage('stop');
      await stopped;
      await worker.terminate();
    },
  };
};
