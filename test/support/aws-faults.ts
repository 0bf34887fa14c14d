/**
 * Fault injection into this process's SDK clients (`observeClients` of `shared/adapters/client-observers.ts`): a middleware
 * in the `deserialize` step sits inside the SDK's retry loop, so an error it throws is retried as one from the service
 * would be (a `ProvisionedThroughputExceededException` as throttling). The fault-injection tests use it to make
 * DynamoDB throttle, SQS refuse a send or SES fail.
 */
import { type ClientService, observeClients } from '#shared/adapters/client-observers.ts';

export type { ClientService };

/** What a middleware sees of a call: the command's (serialized) input and, from the `build` step on, the request. */
export interface MiddlewareArgs {
  readonly input: Record<string, unknown>;
  readonly request?: unknown;
}
/** `commandName` is the low-level command, e.g. `PutItemCommand` (also under the document client). */
export interface MiddlewareContext {
  readonly commandName?: string;
  readonly clientName?: string;
}
export type ClientMiddleware = (
  next: (args: MiddlewareArgs) => Promise<unknown>,
  context: MiddlewareContext,
) => (args: MiddlewareArgs) => Promise<unknown>;

interface Stack {
  add(middleware: never, options: { step: 'deserialize'; name: string }): void;
  remove(name: string): boolean;
}

let sequence = 0;

/**
 * Adds a middleware to this process's client of `service` (now if it exists, else when it is created). Returns a
 * function that removes it.
 */
export const addClientMiddleware = (service: ClientService, middleware: ClientMiddleware): (() => void) => {
  const name = `storeflow-test-hook-${++sequence}`;
  const stacks: Stack[] = [];
  const stopObserving = observeClients((created, client) => {
    if (created !== service) return;
    const stack = client.middlewareStack as Stack;
    stack.add(middleware as never, { step: 'deserialize', name });
    stacks.push(stack);
  });
  return () => {
    stopObserving();
    for (const stack of stacks) stack.remove(name);
  };
};
