/** Probes of the cost scenario (bench/scenarios/cost.ts): the service's own SQS sends, and the bytes its handlers log. */
import { observeClients } from '#shared/adapters/client-observers.ts';

/** Counts the service's own SQS requests (sends), FIFO apart (the consumers' receives and deletes are modeled). */
export const countSqsSends = () => {
  const counts = { fifo: 0, standard: 0 };
  const stop = observeClients((service, client) => {
    if (service !== 'sqs') return;
    (client.middlewareStack as { add(middleware: unknown, options: unknown): void }).add(
      (next: (args: { input: { QueueUrl?: string } }) => Promise<unknown>) =>
        async (args: { input: { QueueUrl?: string } }) => {
          counts[String(args.input.QueueUrl ?? '').endsWith('.fifo') ? 'fifo' : 'standard'] += 1;
          return next(args);
        },
      { step: 'initialize', name: 'benchSqsSends' },
    );
  });
  return { read: () => ({ ...counts }), stop };
};

/** Captures what the handlers log to stdout (counted, not printed). */
export const captureLogs = () => {
  let bytes = 0;
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
    const callback = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
    callback?.();
    return true;
  }) as typeof process.stdout.write;
  return {
    bytes: () => bytes,
    restore: () => {
      process.stdout.write = write;
    },
  };
};
