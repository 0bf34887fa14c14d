/**
 * Who sees the SDK clients as they are made: the one extension point of the clients, outside the module that makes
 * them. The local runtime's contract recorder (`local/contract-recorder.ts`) records each function's calls through it,
 * and the fault-injection tests (`test/support/aws-faults.ts`) add failing middlewares. Production registers no
 * observer, and then this costs one Map entry per client.
 */

export type ClientService = 'dynamodb' | 'sqs' | 'secretsManager' | 'sesv2' | 's3' | 'scheduler';

/** Sees every client made: already made ones at once, later ones as they are made. */
export type ClientObserver = (service: ClientService, client: { readonly middlewareStack: unknown }) => void;

const created = new Map<ClientService, { readonly middlewareStack: unknown }>();
const observers = new Set<ClientObserver>();

/** Starts observing the clients; returns a function that stops. */
export const observeClients = (observer: ClientObserver): (() => void) => {
  observers.add(observer);
  for (const [service, client] of created) observer(service, client);
  return () => observers.delete(observer);
};

/** Shows a newly made client to the observers (every client factory calls it), and hands it back. */
export const observed = <C extends { readonly middlewareStack: unknown }>(service: ClientService, client: C): C => {
  created.set(service, client);
  for (const observer of observers) observer(service, client);
  return client;
};
