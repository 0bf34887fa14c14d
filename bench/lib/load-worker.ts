/** Worker-thread entry of the HTTP load generator: runs the spec it was given and posts the result back. */
import { parentPort, workerData } from 'node:worker_threads';
import { generateLoad, type LoadSpec } from './http-load.ts';

const result = await generateLoad(workerData as LoadSpec);
parentPort?.postMessage(result, [result.latenciesMs.buffer as ArrayBuffer]);
