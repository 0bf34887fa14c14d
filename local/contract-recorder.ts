/**
 * The contract recorder: while the test suite runs, what each catalog function does on the local runtime, for
 * test/contract/ to compare with what its deployed role and environment allow. It records, per function, every AWS API
 * call (service and command, with the partition-key prefix of a DynamoDB write and the queue of an SQS call) and every
 * setting read through `config()`. On when `STOREFLOW_CONTRACT_DIR` is set (vitest.config.ts sets it for `npm test`).
 *
 * Each invocation runs in an AsyncLocalStorage scope named after its function, so an SDK call or a setting read is
 * attributed to the function whose code made it; lazily built wiring is kept per function meanwhile (`scopeLazies`),
 * as each deployed function builds its own. Facts are written to `<dir>/<pid>.json` as they are first seen.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { observeClients } from '#shared/adapters/client-observers.ts';
import { observeConfig } from '#shared/config.ts';
import { scopeLazies } from '#shared/lazy.ts';

/** What one function was seen doing. */
export interface FunctionFacts {
  invocations: number;
  /** `DynamoDBClient:PutItem`, `SQSClient:SendMessageBatch`, … */
  calls: string[];
  /** `PutItem RATE#`: the partition-key prefix (up to its first `#`) each DynamoDB write touched. */
  writeKeys: string[];
  /** `SendMessageBatch storeflow-flows`: the queue (by name) of each SQS call. */
  queues: string[];
  /** Settings (config keys) read. */
  settings: string[];
}

export const CONTRACT_DIR_ENV = 'STOREFLOW_CONTRACT_DIR';

interface SdkContext {
  readonly clientName?: string;
  readonly commandName?: string;
}

type Input = Record<string, unknown> | undefined;
type MiddlewareStack = {
  add: (
    middleware: (
      next: (args: { input: Input }) => Promise<unknown>,
      context: SdkContext,
    ) => (args: { input: Input }) => Promise<unknown>,
    options: { step: 'initialize'; name: string },
  ) => void;
  identify?: () => string[];
};

const pkPrefixOf = (input: Input): string | undefined => {
  const key = (input?.Key ?? input?.Item) as Record<string, { S?: string } | string> | undefined;
  const pk = key?.pk;
  const text = typeof pk === 'string' ? pk : pk?.S;
  if (text === undefined) return undefined;
  const hash = text.indexOf('#');
  return hash === -1 ? text : text.slice(0, hash + 1);
};

const queueOf = (input: Input): string | undefined => {
  const url = input?.QueueUrl;
  return typeof url === 'string' ? (url.split('/').pop() ?? url).replace(/\.fifo$/, '') : undefined;
};

let installed: { readonly run: <T>(name: string, work: () => Promise<T>) => Promise<T> } | undefined;

/** Installs the recorder once per process when `STOREFLOW_CONTRACT_DIR` is set; answers how to run an invocation. */
export const contractRecorder = (): typeof installed => {
  if (installed) return installed;
  const dir = process.env[CONTRACT_DIR_ENV];
  if (!dir) return undefined;
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${process.pid}.json`);
  const scope = new AsyncLocalStorage<string>();
  const facts = new Map<
    string,
    { invocations: number; sets: Record<Exclude<keyof FunctionFacts, 'invocations'>, Set<string>> }
  >();
  const of = (name: string) => {
    let entry = facts.get(name);
    if (!entry) {
      entry = {
        invocations: 0,
        sets: { calls: new Set(), writeKeys: new Set(), queues: new Set(), settings: new Set() },
      };
      facts.set(name, entry);
    }
    return entry;
  };
  const flush = () => {
    const out: Record<string, FunctionFacts> = {};
    for (const [name, entry] of facts) {
      out[name] = {
        invocations: entry.invocations,
        calls: [...entry.sets.calls].sort(),
        writeKeys: [...entry.sets.writeKeys].sort(),
        queues: [...entry.sets.queues].sort(),
        settings: [...entry.sets.settings].sort(),
      };
    }
    writeFileSync(file, JSON.stringify(out, null, 1));
  };
  const note = (kind: Exclude<keyof FunctionFacts, 'invocations'>, fact: string) => {
    const name = scope.getStore();
    if (name === undefined) return;
    const set = of(name).sets[kind];
    if (set.has(fact)) return;
    set.add(fact);
    flush();
  };

  observeClients((_service, client) => {
    const stack = client.middlewareStack as MiddlewareStack;
    if (stack.identify?.().some((entry) => entry.startsWith('storeflowContractRecorder'))) return;
    stack.add(
      (next, context) => async (args) => {
        const command = (context.commandName ?? 'Unknown').replace(/Command$/, '');
        const client = context.clientName ?? 'UnknownClient';
        note('calls', `${client}:${command}`);
        if (client === 'DynamoDBClient') {
          const prefix = pkPrefixOf(args.input);
          if (prefix !== undefined && /^(Put|Update|Delete)Item$/.test(command))
            note('writeKeys', `${command} ${prefix}`);
        }
        if (client === 'SQSClient') {
          const queue = queueOf(args.input);
          if (queue !== undefined) note('queues', `${command} ${queue}`);
        }
        return next(args);
      },
      { step: 'initialize', name: 'storeflowContractRecorder' },
    );
  });
  observeConfig((key) => note('settings', key));
  scopeLazies(() => scope.getStore());

  installed = {
    run: (name, work) => {
      of(name).invocations++;
      if (of(name).invocations === 1) flush();
      return scope.run(name, work);
    },
  };
  return installed;
};
