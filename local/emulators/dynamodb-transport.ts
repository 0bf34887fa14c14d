/**
 * The local runtime's DynamoDB clients call dynalite's thread without a socket. Over HTTP on 127.0.0.1, each call cost
 * this process a request's write, a response's parse and the SDK's HTTP handler: about a fifth of the runtime's CPU
 * under load (the noisy bench's profile: `writev` alone 10 %), CPU that deployed functions do not spend on anything
 * like it and that here every function shares. The request the SDK built (headers and JSON body, as it would send
 * them) goes to the thread as a message and dynalite's own request handler answers it, so what is served and counted
 * is the same; only the transport differs. Other processes (an operator's tools, `aws dynamodb --endpoint-url`) still
 * reach dynalite over HTTP on its port.
 *
 * The handler is one per process and sends to the runtime started last (`useLocalDynamo`): a runtime stopped and
 * started again in one process (the kill-restart test) keeps its clients, as it keeps their HTTP endpoint.
 */
import { type ClientService, observeClients } from '#shared/adapters/client-observers.ts';
import type { LocalDynamo } from './dynamodb.ts';

interface HttpRequestLike {
  readonly headers: Record<string, string>;
  readonly body?: unknown;
}

let current: LocalDynamo | undefined;

/** A connection refused, as the SDK's HTTP handler reports one (retried like one). */
const refused = () =>
  Object.assign(new Error('connect ECONNREFUSED: the local DynamoDB is not running'), { code: 'ECONNREFUSED' });

const bodyText = (body: unknown): string => {
  if (body === undefined || body === null) return '';
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  throw new Error('the local DynamoDB transport takes a string or bytes body');
};

/** An SDK request handler (`requestHandler`) that hands each call to the current local DynamoDB's thread. */
const handler = {
  metadata: { handlerProtocol: 'local-thread' },
  async handle(request: HttpRequestLike, options?: { abortSignal?: AbortSignal }) {
    if (options?.abortSignal?.aborted) throw Object.assign(new Error('Request aborted'), { name: 'AbortError' });
    const dynamo = current;
    if (!dynamo) throw refused();
    const answer = await dynamo.call(request.headers, bodyText(request.body));
    return {
      response: { statusCode: answer.statusCode, headers: answer.headers, body: Buffer.from(answer.body, 'utf8') },
    };
  },
  updateHttpClientConfig() {},
  httpHandlerConfigs: () => ({}),
  destroy() {},
};

/** The local DynamoDB that this process's clients call from now on (`undefined`: none; calls are refused). */
export const useLocalDynamo = (dynamo: LocalDynamo | undefined): void => {
  current = dynamo;
};

/** Every DynamoDB client made in this process (and every one already made) calls through the thread. */
export const inProcessDynamoClients = (): (() => void) =>
  observeClients((service: ClientService, client) => {
    if (service !== 'dynamodb') return;
    (client as unknown as { config: { requestHandler: unknown } }).config.requestHandler = handler;
  });
