/**
 * SDK clients, created once per process on first use. Endpoints come from the standard `AWS_ENDPOINT_URL_*`
 * variables (the local runtime sets them to its emulators); there is no local branch here.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { processWide } from '#shared/lazy.ts';

export type ClientService = 'dynamodb' | 'sqs' | 'secretsManager' | 'sesv2' | 's3' | 'scheduler';

/** Sees every client this module creates: already created ones at once, later ones as they are created. */
export type ClientObserver = (service: ClientService, client: { readonly middlewareStack: unknown }) => void;

const created = new Map<ClientService, { readonly middlewareStack: unknown }>();
const observers = new Set<ClientObserver>();

/**
 * The one extension point of the clients, for fault injection in tests (`test/support/aws-faults.ts` adds middlewares
 * through it). Production registers no observer. Returns a function that stops observing.
 */
export const observeClients = (observer: ClientObserver): (() => void) => {
  observers.add(observer);
  for (const [service, client] of created) observer(service, client);
  return () => observers.delete(observer);
};

/**
 * Registers a client made elsewhere (the S3 and Scheduler clients live in their adapters, so that only the functions
 * that use them bundle them) with the observers, like the ones made here.
 */
export const observed = <C extends { readonly middlewareStack: unknown }>(service: ClientService, client: C): C => {
  created.set(service, client);
  for (const observer of observers) observer(service, client);
  return client;
};

export const dynamo = processWide(() =>
  DynamoDBDocumentClient.from(observed('dynamodb', new DynamoDBClient({})), {
    // A JSON object with an own `constructor` key (free-form event data may have one) is still a plain map: without
    // this option the marshaller takes it for a class instance and throws, and the event could never be applied.
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: true },
  }),
);

export const sqs = processWide(() => observed('sqs', new SQSClient({})));

export const secretsManager = processWide(() => observed('secretsManager', new SecretsManagerClient({})));

export const sesv2 = processWide(() => observed('sesv2', new SESv2Client({})));
