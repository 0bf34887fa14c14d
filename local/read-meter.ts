/**
 * A meter of the reads the service makes through its DynamoDB client (handlers run in the local runtime's process and
 * share it), sorted by what they are for, with the items each went through and the read capacity dynalite computes for
 * it (the meter asks for `ReturnConsumedCapacity: TOTAL`; the service does not). Used by the export bench and tests.
 */
import { dynamo } from '#shared/adapters/aws-clients.ts';

/**
 * A Query reads a page of contacts (`page`), skips keys only (`skip`), counts the total (`count`), reads the contact
 * counters (`counters`) or a remembered page start (`positions`); `getItem` is any GetItem.
 */
export type ReadKind = 'page' | 'skip' | 'count' | 'counters' | 'positions' | 'getItem';
export const READ_KINDS: readonly ReadKind[] = ['page', 'skip', 'count', 'counters', 'positions', 'getItem'];

export interface Reads {
  calls: number;
  /** Items the reads went through (`ScannedCount`; 1 per GetItem that found its item). */
  items: number;
  /** Read capacity units dynalite computed (eventually consistent reads count half). */
  capacity: number;
}
export type ReadTally = Record<ReadKind, Reads>;

export const emptyTally = (): ReadTally =>
  Object.fromEntries(READ_KINDS.map((kind) => [kind, { calls: 0, items: 0, capacity: 0 }])) as ReadTally;

const round1 = (n: number) => Math.round(n * 10) / 10;

export const tallyDelta = (before: ReadTally, after: ReadTally): ReadTally =>
  Object.fromEntries(
    READ_KINDS.map((kind) => [
      kind,
      {
        calls: after[kind].calls - before[kind].calls,
        items: after[kind].items - before[kind].items,
        capacity: round1(after[kind].capacity - before[kind].capacity),
      },
    ]),
  ) as ReadTally;

/** Every item read, whatever for. */
export const itemsRead = (tally: ReadTally, kinds: readonly ReadKind[] = READ_KINDS) =>
  kinds.reduce((n, kind) => n + tally[kind].items, 0);

const METER_NAME = 'localReadMeter';

const kindOf = (command: string | undefined, input: Record<string, unknown>): ReadKind | undefined => {
  if (command === 'GetCommand' || command === 'GetItemCommand') return 'getItem';
  if (command !== 'QueryCommand') return undefined;
  if (input.Select === 'COUNT') return 'count';
  if (input.IndexName === undefined) {
    const pk = String((input.ExpressionAttributeValues as Record<string, unknown> | undefined)?.[':pk'] ?? '');
    return pk.includes('#CONTACT-COUNTS#') ? 'counters' : 'positions';
  }
  return input.ProjectionExpression === undefined ? 'page' : 'skip';
};

/** Installs the meter on the service's DynamoDB client; `remove()` takes it off. */
export const installReadMeter = () => {
  const tally = emptyTally();
  const middleware = (
    next: (args: { input: Record<string, unknown> }) => Promise<{ output: Record<string, unknown> }>,
    context: { commandName?: string },
  ) => {
    return async (args: { input: Record<string, unknown> }) => {
      const kind = kindOf(context.commandName, args.input);
      if (kind === undefined) return next(args);
      const result = await next({ ...args, input: { ...args.input, ReturnConsumedCapacity: 'TOTAL' } });
      const { output } = result;
      const reads = tally[kind];
      reads.calls += 1;
      reads.items += kind === 'getItem' ? (output.Item ? 1 : 0) : Number(output.ScannedCount ?? 0);
      reads.capacity += Number((output.ConsumedCapacity as { CapacityUnits?: number } | undefined)?.CapacityUnits ?? 0);
      return result;
    };
  };
  const stack = dynamo().middlewareStack;
  // The SDK's middleware types are not a dependency of the project: the shape above is what it calls.
  stack.add(middleware as never, { step: 'initialize', name: METER_NAME });
  return {
    read: (): ReadTally => structuredClone(tally),
    remove: () => stack.remove(METER_NAME),
  };
};
export type ReadMeter = ReturnType<typeof installReadMeter>;
