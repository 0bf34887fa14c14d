/**
 * SDK clients, created once per process on first use. Endpoints come from the standard `AWS_ENDPOINT_URL_*`
 * variables (the local runtime sets them to its emulators); there is no local branch here.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

let documentClient: DynamoDBDocumentClient | undefined;
let sqsClient: SQSClient | undefined;
let secretsClient: SecretsManagerClient | undefined;
let sesClient: SESv2Client | undefined;

export const dynamo = (): DynamoDBDocumentClient => {
  documentClient ??= DynamoDBDocumentClient.from(hooked('dynamodb', new DynamoDBClient({})), {
    // A JSON object with an own `constructor` key (free-form event data may have one) is still a plain map: without
    // this option the marshaller takes it for a class instance and throws, and the event could never be applied.
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: true },
  });
  return documentClient;
};

export const sqs = (): SQSClient => {
  sqsClient ??= hooked('sqs', new SQSClient({}));
  return sqsClient;
};

export const secretsManager = (): SecretsManagerClient => {
  secretsClient ??= hooked('secretsManager', new SecretsManagerClient({}));
  return secretsClient;
};

export const sesv2 = (): SESv2Client => {
  sesClient ??= hooked('sesv2', new SESv2Client({}));
  return sesClient;
};

// ---- Fault injection (tests only) ----------------------------------------------------------------------------------

export type ClientService = 'dynamodb' | 'sqs' | 'secretsManager' | 'sesv2';

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

interface Hook {
  readonly name: string;
  readonly middleware: ClientMiddleware;
}
interface Stack {
  add(middleware: never, options: { step: 'deserialize'; name: string }): void;
  remove(name: string): boolean;
}

const hooks = new Map<ClientService, Hook[]>();
const hookedClients = new Map<ClientService, Stack>();

/** Applies the middlewares added so far to a client as it is created (nothing when none was added: production). */
const hooked = <C extends { middlewareStack: unknown }>(service: ClientService, client: C): C => {
  const stack = client.middlewareStack as Stack;
  hookedClients.set(service, stack);
  for (const hook of hooks.get(service) ?? [])
    stack.add(hook.middleware as never, { step: 'deserialize', name: hook.name });
  return client;
};

let hookSequence = 0;

/**
 * Test-only: adds a middleware to this process's client of `service` (now if it exists, else when it is created), in
 * the `deserialize` step: inside the SDK's retry loop, so an error it throws is retried as one from the service would be
 * (a `ProvisionedThroughputExceededException` as throttling). The fault-injection tests use it to make DynamoDB
 * throttle, SQS refuse a send or SES fail. Returns a function that removes it. No production code calls it.
 */
export const addClientMiddleware = (service: ClientService, middleware: ClientMiddleware): (() => void) => {
  const hook = { name: `storeflow-test-hook-${++hookSequence}`, middleware };
  hooks.set(service, [...(hooks.get(service) ?? []), hook]);
  hookedClients.get(service)?.add(middleware as never, { step: 'deserialize', name: hook.name });
  return () => {
    hooks.set(
      service,
      (hooks.get(service) ?? []).filter((h) => h !== hook),
    );
    hookedClients.get(service)?.remove(hook.name);
  };
};
