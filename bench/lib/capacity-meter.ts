/**
 * A meter of the DynamoDB capacity the service consumes through its client (handlers run in the runtime's process and
 * share it): every call is made with `ReturnConsumedCapacity: TOTAL` (the service does not ask for it) and the units
 * dynalite computes are summed as reads or writes, by operation. The cost model prices these units (on-demand).
 */
import { dynamo } from '#shared/adapters/aws-clients.ts';

const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);
const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);

export interface CapacityTally {
  /** Calls by operation (`PutItem`, …). */
  readonly calls: Record<string, number>;
  /** Capacity units by operation and what the key is (`PutItem RUN`: the upper-case words of its partition key). */
  readonly units: Record<string, number>;
  /**
   * Calls by operation and item kind (`PutItem RUN`; a batch or transaction names every kind it touches:
   * `BatchGetItem RUN+SUPPRESSION`).
   */
  readonly callsByKind: Record<string, number>;
  /** Items a batch or transaction call named, by operation and item kind (`BatchGetItem RUN`). */
  readonly batchItemsByKind: Record<string, number>;
  readUnits: number;
  writeUnits: number;
}

const METER_NAME = 'benchCapacityMeter';

/** The document client's command names and the operations they are. */
const DOCUMENT_COMMANDS: Record<string, string> = {
  Get: 'GetItem',
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  BatchGet: 'BatchGetItem',
  BatchWrite: 'BatchWriteItem',
  TransactGet: 'TransactGetItems',
  TransactWrite: 'TransactWriteItems',
};

/** The operation a command is: `PutCommand` and `PutItemCommand` are both `PutItem`. */
const operationOf = (commandName: string | undefined): string => {
  const name = (commandName ?? '').replace(/Command$/, '');
  return DOCUMENT_COMMANDS[name] ?? name;
};

const wordsOf = (pk: string): string =>
  pk
    .split('#')
    .filter((part) => /^[A-Z][A-Z-]*$/.test(part) && part !== 'STORE')
    .join('#') ||
  pk.split('#')[0] ||
  '?';

/** What an item is, from its partition key: `STORE#st_…#RUN#run_…` → `RUN` (ids and values left out). */
const kindOf = (input: Record<string, unknown>): string => {
  // A batch write: the kind of its first request (the service batches items of one kind).
  const batch = Object.values((input.RequestItems ?? {}) as Record<string, unknown[]>)[0]?.[0] as
    | { PutRequest?: { Item?: unknown }; DeleteRequest?: { Key?: unknown } }
    | undefined;
  const key = (input.Key ?? input.Item ?? batch?.PutRequest?.Item ?? batch?.DeleteRequest?.Key) as
    | { pk?: unknown }
    | undefined;
  const values = input.ExpressionAttributeValues as Record<string, unknown> | undefined;
  const pk = String(key?.pk ?? values?.[':pk'] ?? (input.IndexName ? `index ${input.IndexName}` : ''));
  return wordsOf(pk);
};

const pkOf = (value: unknown): string => {
  const pk = (value as { pk?: unknown } | undefined)?.pk;
  return String((pk as { S?: unknown } | undefined)?.S ?? pk ?? '');
};

/** The partition keys a batch or transaction touches (empty for a single-item call or a query). */
const batchKeysOf = (input: Record<string, unknown>): string[] => {
  const keys: string[] = [];
  const requestItems = input.RequestItems as Record<string, unknown> | undefined;
  for (const request of Object.values(requestItems ?? {})) {
    if (Array.isArray(request)) {
      for (const write of request as { PutRequest?: { Item?: unknown }; DeleteRequest?: { Key?: unknown } }[]) {
        keys.push(pkOf(write.PutRequest?.Item ?? write.DeleteRequest?.Key));
      }
    } else {
      for (const key of (request as { Keys?: unknown[] }).Keys ?? []) keys.push(pkOf(key));
    }
  }
  const items = (input.TransactItems ?? []) as Record<string, { Key?: unknown; Item?: unknown }>[];
  for (const item of items) {
    const part = Object.values(item)[0];
    keys.push(pkOf(part?.Item ?? part?.Key));
  }
  return keys;
};

/** `callsByKind`'s name of a call: the operation and the kinds of every item it names (each once). */
const callKindOf = (operation: string, input: Record<string, unknown>): string => {
  const keys = batchKeysOf(input);
  if (keys.length === 0) return `${operation} ${kindOf(input)}`;
  return `${operation} ${[...new Set(keys.map(wordsOf))].sort().join('+')}`;
};

const unitsOf = (consumed: unknown): number =>
  (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []).reduce(
    (sum: number, entry: { CapacityUnits?: number }) => sum + Number(entry.CapacityUnits ?? 0),
    0,
  );

/** Installs the meter on the service's DynamoDB client; `read()` is the tally so far, `remove()` takes it off. */
export const installCapacityMeter = () => {
  const tally: CapacityTally = {
    calls: {},
    units: {},
    callsByKind: {},
    batchItemsByKind: {},
    readUnits: 0,
    writeUnits: 0,
  };
  /**
   * The calls made since the last `read()`, tallied then: the middleware only keeps each call's input and the units
   * consumed, so the meter takes as little as it can of the thread whose throughput a scenario measures (tallying in
   * the call's path cost the worker bench's drain about a tenth of its rate).
   */
  let pending: [operation: string, input: Record<string, unknown>, consumed: unknown][] = [];
  const tallyPending = () => {
    for (const [operation, input, consumed] of pending) {
      tally.calls[operation] = (tally.calls[operation] ?? 0) + 1;
      const callKind = callKindOf(operation, input);
      tally.callsByKind[callKind] = (tally.callsByKind[callKind] ?? 0) + 1;
      for (const key of batchKeysOf(input)) {
        const itemKind = `${operation} ${wordsOf(key)}`;
        tally.batchItemsByKind[itemKind] = (tally.batchItemsByKind[itemKind] ?? 0) + 1;
      }
      const units = unitsOf(consumed);
      const kind = `${operation} ${kindOf(input)}`;
      tally.units[kind] = (tally.units[kind] ?? 0) + units;
      if (WRITES.has(operation)) tally.writeUnits += units;
      else tally.readUnits += units;
    }
    pending = [];
  };
  const middleware =
    (
      next: (args: { input: Record<string, unknown> }) => Promise<{ output: Record<string, unknown> }>,
      context: { commandName?: string },
    ) =>
    async (args: { input: Record<string, unknown> }) => {
      const operation = operationOf(context.commandName);
      if (!READS.has(operation) && !WRITES.has(operation)) return next(args);
      const result = await next({ ...args, input: { ...args.input, ReturnConsumedCapacity: 'TOTAL' } });
      pending.push([operation, args.input, result.output.ConsumedCapacity]);
      return result;
    };
  const stack = dynamo().middlewareStack;
  // The SDK's middleware types are not a dependency of the project: the shape above is what it calls.
  stack.add(middleware as never, { step: 'initialize', name: METER_NAME });
  return {
    read: (): CapacityTally => {
      tallyPending();
      return structuredClone(tally);
    },
    remove: () => stack.remove(METER_NAME),
  };
};

const difference = (before: Record<string, number>, after: Record<string, number>) =>
  Object.fromEntries(
    Object.entries(after)
      .map(([name, n]) => [name, n - (before[name] ?? 0)] as const)
      .filter(([, n]) => n !== 0),
  );

export const capacityDelta = (before: CapacityTally, after: CapacityTally): CapacityTally => ({
  calls: Object.fromEntries(
    Object.entries(after.calls)
      .map(([name, n]) => [name, n - (before.calls[name] ?? 0)] as const)
      .filter(([, n]) => n !== 0),
  ),
  units: Object.fromEntries(
    Object.entries(after.units)
      .map(([name, n]) => [name, n - (before.units[name] ?? 0)] as const)
      .filter(([, n]) => n !== 0),
  ),
  callsByKind: difference(before.callsByKind, after.callsByKind),
  batchItemsByKind: difference(before.batchItemsByKind, after.batchItemsByKind),
  readUnits: after.readUnits - before.readUnits,
  writeUnits: after.writeUnits - before.writeUnits,
});
