/**
 * Who sees the SDK clients as they are made: the one extension point of the clients, outside the module that makes
 * them. The local runtime's contract recorder (`local/contract-recorder.ts`) records each function's calls through it,
 * and the fault-injection tests (`test/support/aws-faults.ts`) add failing middlewares. Production registers no
 * observer, and then this costs one array entry per client (one per service and process, two for SESv2).
 */
import { onReset } from '#shared/lazy.ts';

export type ClientService = 'dynamodb' | 'sqs' | 'secretsManager' | 'sesv2' | 's3' | 'scheduler';

/** Sees every client made: already made ones at once, later ones as they are made. */
export type ClientObserver = (service: ClientService, client: { readonly middlewareStack: unknown }) => void;

/** Every client made, in order (a service may have two: the SES mailer's own and the SDK's for identities). */
const created: [ClientService, { readonly middlewareStack: unknown }][] = [];
const observers = new Set<ClientObserver>();
// Clients forgotten by the process's reset are made again: the old ones are no longer shown to new observers.
onReset(() => {
  created.length = 0;
});

/** Starts observing the clients; returns a function that stops. */
export const observeClients = (observer: ClientObserver): (() => void) => {
  observers.add(observer);
  for (const [service, client] of created) observer(service, client);
  return () => observers.delete(observer);
};

/** What `observed` needs of a client's middleware stack. */
interface Removable {
  remove(name: string): boolean;
}

/**
 * Shows a newly made client to the observers (every client factory calls it), and hands it back. It first takes off
 * the SDK's logger middleware: with no logger given (we give none) it still builds a sensitive-data-filtered copy of
 * every call's input and output for the no-op logger, a few percent of the CPU of a busy worker (the worker's profile).
 */
export const observed = <C extends { readonly middlewareStack: unknown }>(service: ClientService, client: C): C => {
  (client.middlewareStack as Removable).remove('loggerMiddleware');
  created.push([service, client]);
  for (const observer of observers) observer(service, client);
  return client;
};
