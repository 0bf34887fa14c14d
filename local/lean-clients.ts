/**
 * The local runtime's SDK clients skip per-call work that only AWS itself reads. Every function of the local runtime
 * shares one process and two cores, so CPU a deployed function spends in its own sandbox is here taken from every
 * other store's requests (the noisy-neighbour bench: half of the busy time under attack was the SDK's per-call
 * middleware).
 * - SigV4 signing: the emulators (dynalite, fauxqs, ours) never check a signature; they read only that an
 *   `Authorization` header is there and, for fauxqs, the region in its credential scope. Signing every call (HMAC key
 *   derivation and a SHA-256 of each body) was about 6 % of the runtime's CPU under load.
 * - The user agent (built and escaped per call, about 3 % of the busy time in the same profile) and the Lambda
 *   recursion-detection header: no emulator reads either.
 * Deployed clients are untouched: this is registered only by `startLocalRuntime`. S3 keeps its signer: the upload URLs
 * are presigned through the client's signing middleware (and S3 calls are few).
 */
import { type ClientService, observeClients } from '#shared/adapters/client-observers.ts';
import { REGION } from './resources.ts';

/** The signing name of each service, as a real credential scope would carry it. */
const SIGNING_NAME: Record<ClientService, string> = {
  dynamodb: 'dynamodb',
  sqs: 'sqs',
  secretsManager: 'secretsmanager',
  sesv2: 'ses',
  s3: 's3',
  scheduler: 'scheduler',
};

type Handler = (args: { request?: unknown }) => Promise<unknown>;
interface Stack {
  identify(): string[];
  remove(name: string): boolean;
  addRelativeTo(
    middleware: (next: Handler) => Handler,
    options: { name: string; relation: 'after'; toMiddleware: string },
  ): void;
}

const NAME = 'storeflowLocalUnsigned';

/** Middlewares whose only reader is AWS (signing is replaced by `unsigned`, the others are dropped). */
export const DROPPED_MIDDLEWARES = [
  'httpSigningMiddleware',
  'getUserAgentMiddleware',
  'recursionDetectionMiddleware',
] as const;

/** A well-formed but unsigned `Authorization` header, set where the signing middleware would sign. */
const unsigned = (service: ClientService) => {
  return (next: Handler): Handler =>
    async (args) => {
      const request = args.request as { headers?: Record<string, string> } | undefined;
      if (request?.headers) {
        const amzDate = new Date().toISOString().replace(/[-:]|\.\d{3}/g, '');
        request.headers['x-amz-date'] = amzDate;
        request.headers.authorization =
          `AWS4-HMAC-SHA256 Credential=local/${amzDate.slice(0, 8)}/${REGION}/${SIGNING_NAME[service]}/aws4_request, ` +
          'SignedHeaders=host;x-amz-date, Signature=0';
      }
      return next(args);
    };
};

/**
 * From now on, every client made in this process (and every one already made) sends unsigned requests without a user
 * agent or recursion-detection header.
 */
export const leanClients = (): (() => void) => observeClients(leanClient);

/**
 * One client made lean (once), as `leanClients` makes every observed one: for the runtime's own clients that the
 * observers must not see (the pollers': the fault-injection tests' SQS faults are for the service's calls).
 */
export const leanClient = <C extends { readonly middlewareStack: unknown }>(service: ClientService, client: C): C => {
  if (service === 's3') return client;
  const stack = client.middlewareStack as Stack;
  if (stack.identify().some((entry) => entry.startsWith(NAME))) return client;
  for (const name of DROPPED_MIDDLEWARES) stack.remove(name);
  stack.addRelativeTo(unsigned(service), { name: NAME, relation: 'after', toMiddleware: 'retryMiddleware' });
  return client;
};
