/**
 * HTTP load generator for the event interfaces: `concurrency` keep-alive clients posting `customers/create` events with
 * unique `source_id`s, spread round-robin over many stores and paced so that no store exceeds a per-second budget (the
 * spec's per-store rate limit, with a margin, so a 429 in the results means the server miscounted, not the bench).
 *
 * The spec and the result are plain data, so the same code runs in the runtime's thread or in a worker thread
 * (`load-worker.ts`), which keeps the client's own CPU off the thread that serves the requests.
 */
import { Agent, request } from 'node:http';
import { Worker } from 'node:worker_threads';
import { Samples } from './stats.ts';
import { nextSecond, StoreWindows } from './store-windows.ts';

export interface LoadSpec {
  /** Full URL of the event endpoint, e.g. `http://127.0.0.1:1234/api/v1/events`. */
  readonly url: string;
  /** One API key per store; requests rotate over them. */
  readonly apiKeys: readonly string[];
  /** Requests per second the generator allows itself per store (fixed one-second windows, like the server's). */
  readonly perStoreBudget: number;
  readonly concurrency: number;
  readonly client: 'http' | 'fetch';
  /** First event number: `source_id` is `b-<n>`, customer id `c-<n>`; phases use disjoint ranges. */
  readonly firstIndex: number;
  /** Stop issuing after this long… */
  readonly durationMs?: number;
  /** …or after this many requests. */
  readonly count?: number;
}

export interface LoadResult {
  readonly elapsedMs: number;
  readonly requests: number;
  /** Latency of every completed request (ms), in completion order. */
  readonly latenciesMs: Float64Array;
  /** `accepted`, `duplicate`, `HTTP <status>` or `error <code>` → count. */
  readonly outcomes: Record<string, number>;
  /** Times a client had to wait because every store had used its budget for the current second. */
  readonly budgetWaits: number;
  /** The first few unexpected answers, for the report. */
  readonly samples: readonly string[];
  /** CPU time of the thread that ran the generator (ms): the client's own cost when it runs in a worker thread. */
  readonly threadCpuMs: number;
}

interface Answer {
  readonly status: number;
  readonly body: string;
}

type Post = (body: string, apiKey: string) => Promise<Answer>;

const httpPost = (url: URL, agent: Agent): Post => {
  const base = { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent };
  return (body, apiKey) =>
    new Promise((resolve, reject) => {
      const req = request(
        {
          ...base,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'x-service-access-token': apiKey,
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            text += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
};

const fetchPost =
  (url: URL): Post =>
  async (body, apiKey) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-access-token': apiKey },
      body,
    });
    return { status: res.status, body: await res.text() };
  };

/** Round-robin over the stores, skipping any that has used its budget in the current wall-clock second. */
class StoreRotation {
  readonly #windows: StoreWindows;
  readonly #budget: number;
  #next = 0;
  waits = 0;

  constructor(stores: number, budget: number) {
    this.#windows = new StoreWindows(stores);
    this.#budget = budget;
  }

  async take(): Promise<number> {
    const stores = this.#windows.stores;
    for (;;) {
      for (let tried = 0; tried < stores; tried++) {
        const store = this.#next;
        this.#next = (this.#next + 1) % stores;
        if (this.#windows.take(store, this.#budget)) return store;
      }
      this.waits++;
      await nextSecond();
    }
  }
}

const eventBody = (n: number) =>
  `{"endpoint":"customers/create","source_id":"b-${n}","data":{"id":"c-${n}","email":"c${n}@example.com","created_at":1700000000,"first_name":"Ada"}}`;

const outcomeOf = (answer: Answer): string => {
  if (answer.status === 200) {
    // The events interface answers a duplicate with HTTP 200 and `code: 304` in the body.
    if (answer.body.includes('"code":200')) return 'accepted';
    if (answer.body.includes('"code":304')) return 'duplicate';
  }
  return `HTTP ${answer.status}`;
};

/** Runs the load in the calling thread. */
export const generateLoad = async (spec: LoadSpec): Promise<LoadResult> => {
  if (spec.apiKeys.length === 0) throw new Error('The load generator needs at least one store');
  const url = new URL(spec.url);
  const agent = new Agent({ keepAlive: true, maxSockets: spec.concurrency, maxFreeSockets: spec.concurrency });
  const post = spec.client === 'fetch' ? fetchPost(url) : httpPost(url, agent);
  const rotation = new StoreRotation(spec.apiKeys.length, spec.perStoreBudget);
  const latencies = new Samples();
  const outcomes: Record<string, number> = {};
  const samples: string[] = [];
  const count = (outcome: string, detail: string) => {
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    if (outcome !== 'accepted' && samples.length < 5) samples.push(`${outcome}: ${detail.slice(0, 300)}`);
  };

  let issued = 0;
  const cpuStart = process.threadCpuUsage();
  const start = performance.now();
  const deadline = spec.durationMs === undefined ? Number.POSITIVE_INFINITY : start + spec.durationMs;
  const limit = spec.count ?? Number.POSITIVE_INFINITY;

  const client = async () => {
    while (issued < limit && performance.now() < deadline) {
      const n = spec.firstIndex + issued++;
      const store = await rotation.take();
      const sent = performance.now();
      try {
        const answer = await post(eventBody(n), spec.apiKeys[store] ?? '');
        latencies.push(performance.now() - sent);
        count(outcomeOf(answer), answer.body);
      } catch (error) {
        latencies.push(performance.now() - sent);
        const code = (error as { code?: string }).code ?? (error as Error).name;
        count(`error ${code}`, String(error));
      }
    }
  };

  try {
    await Promise.all(Array.from({ length: spec.concurrency }, client));
  } finally {
    agent.destroy();
  }
  const cpu = process.threadCpuUsage(cpuStart);
  return {
    threadCpuMs: (cpu.user + cpu.system) / 1000,
    elapsedMs: performance.now() - start,
    requests: latencies.length,
    latenciesMs: latencies.toArray(),
    outcomes,
    budgetWaits: rotation.waits,
    samples,
  };
};

/** Runs the load in a worker thread (see `load-worker.ts`), or in this thread when `thread` is false. */
export const runLoad = (spec: LoadSpec, thread: boolean): Promise<LoadResult> => {
  if (!thread) return generateLoad(spec);
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./load-worker.ts', import.meta.url), { workerData: spec });
    let settled = false;
    worker.once('message', (result: LoadResult) => {
      settled = true;
      resolve(result);
    });
    worker.once('error', (error) => {
      settled = true;
      reject(error);
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`The load worker exited with code ${code} before reporting`));
    });
  });
};
