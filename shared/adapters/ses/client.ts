/**
 * The service's SESv2 client (one per process, observed as `sesv2`): the operations the service calls (`SendEmail`,
 * `SendBulkEmail`, and `Get`/`Create`/`DeleteEmailIdentity` for sender domains) on the small client of
 * `../signed-client.ts` instead of `@aws-sdk/client-sesv2`, whose model (every shape and error of the SESv2 API) is
 * ~60 kB of each bundle that sends mail or checks a sender: flow-worker, send-worker, campaigns-create, senders-*…
 * (issue 16, cold starts).
 *
 * SESv2 is REST with JSON bodies whose keys are the SDK's member names: a request body is the SDK command's input as
 * JSON (minus the members bound to the path), the answer's JSON is the output (timestamps stay epoch seconds, not
 * `Date`s: the service reads none). Errors are named as the SDK names them: the `x-amzn-errortype` header, else the body's `code` or
 * `__type`, without namespace or suffix (`MessageRejected`, `TooManyRequestsException`…), with the status in
 * `$metadata.httpStatusCode`, so the mailer classifies them as before.
 */
import type {
  CreateEmailIdentityCommandInput,
  CreateEmailIdentityCommandOutput,
  DeleteEmailIdentityCommandInput,
  DeleteEmailIdentityCommandOutput,
  GetEmailIdentityCommandInput,
  GetEmailIdentityCommandOutput,
  SendBulkEmailCommandInput,
  SendBulkEmailCommandOutput,
  SendEmailCommandInput,
  SendEmailCommandOutput,
} from '@aws-sdk/client-sesv2';
import { observed } from '#shared/adapters/client-observers.ts';
import {
  escapeUri,
  type HttpResponse,
  type Operation,
  OperationCommand,
  readText,
  requestAt,
  SignedClient,
  serviceError,
} from '#shared/adapters/signed-client.ts';
import { processWide } from '#shared/lazy.ts';

/** `x-amzn-errortype` or a body's `code` / `__type` as the SDK reads it: `ns#Name:extra` → `Name`. */
const sanitizeErrorCode = (raw: unknown): string | undefined => {
  if (raw === undefined || raw === null) return undefined;
  let code = String(raw);
  if (code.includes(',')) code = code.split(',')[0] ?? code;
  if (code.includes(':')) code = code.split(':')[0] ?? code;
  if (code.includes('#')) code = code.split('#')[1] ?? code;
  return code || undefined;
};

const fieldOf = (data: Record<string, unknown>, name: string): unknown =>
  Object.entries(data).find(([key]) => key.toLowerCase() === name)?.[1];

const jsonError = async (response: HttpResponse) => {
  const text = await readText(response).catch(() => '');
  let data: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object') data = parsed as Record<string, unknown>;
  } catch {
    // Not JSON (a proxy's or an emulator's plain answer): the status names it.
  }
  const header = Object.entries(response.headers).find(([key]) => key.toLowerCase() === 'x-amzn-errortype')?.[1];
  const message = fieldOf(data, 'message');
  return serviceError(response, {
    name: sanitizeErrorCode(header) ?? sanitizeErrorCode(fieldOf(data, 'code')) ?? sanitizeErrorCode(data.__type),
    message: typeof message === 'string' ? message : undefined,
  });
};

/** An operation whose request is `method path` with `body` as JSON (if any), and whose output is the JSON answer. */
const jsonOperation = <I, O extends object>(
  name: string,
  method: 'GET' | 'POST' | 'DELETE',
  path: (input: I) => string,
  body?: (input: I) => unknown,
): Operation<I, O> => ({
  name,
  request: (settings, input) => {
    const request = requestAt(settings.endpoint, { method, path: path(input) });
    if (body) {
      const json = JSON.stringify(body(input));
      request.headers['content-type'] = 'application/json';
      request.headers['content-length'] = String(Buffer.byteLength(json));
      request.body = json;
    }
    return request;
  },
  output: async (response) => {
    const text = await readText(response);
    return (text ? JSON.parse(text) : {}) as O;
  },
  error: jsonError,
});

type Output<T> = Omit<T, '$metadata'>;

const identityPath = (input: { readonly EmailIdentity: string | undefined }) =>
  `/v2/email/identities/${escapeUri(input.EmailIdentity ?? '')}`;

const SEND_EMAIL = jsonOperation<SendEmailCommandInput, Output<SendEmailCommandOutput>>(
  'SendEmail',
  'POST',
  () => '/v2/email/outbound-emails',
  (input) => input,
);
const SEND_BULK_EMAIL = jsonOperation<SendBulkEmailCommandInput, Output<SendBulkEmailCommandOutput>>(
  'SendBulkEmail',
  'POST',
  () => '/v2/email/outbound-bulk-emails',
  (input) => input,
);
const GET_EMAIL_IDENTITY = jsonOperation<GetEmailIdentityCommandInput, Output<GetEmailIdentityCommandOutput>>(
  'GetEmailIdentity',
  'GET',
  identityPath,
);
const CREATE_EMAIL_IDENTITY = jsonOperation<CreateEmailIdentityCommandInput, Output<CreateEmailIdentityCommandOutput>>(
  'CreateEmailIdentity',
  'POST',
  () => '/v2/email/identities',
  (input) => input,
);
const DELETE_EMAIL_IDENTITY = jsonOperation<DeleteEmailIdentityCommandInput, Output<DeleteEmailIdentityCommandOutput>>(
  'DeleteEmailIdentity',
  'DELETE',
  identityPath,
);

const CLIENT_NAME = 'SESv2Client';
export const sendEmail = (input: SendEmailCommandInput) => new OperationCommand(CLIENT_NAME, SEND_EMAIL, input);
export const sendBulkEmail = (input: SendBulkEmailCommandInput) =>
  new OperationCommand(CLIENT_NAME, SEND_BULK_EMAIL, input);
export const getEmailIdentity = (input: GetEmailIdentityCommandInput) =>
  new OperationCommand(CLIENT_NAME, GET_EMAIL_IDENTITY, input);
export const createEmailIdentity = (input: CreateEmailIdentityCommandInput) =>
  new OperationCommand(CLIENT_NAME, CREATE_EMAIL_IDENTITY, input);
export const deleteEmailIdentity = (input: DeleteEmailIdentityCommandInput) =>
  new OperationCommand(CLIENT_NAME, DELETE_EMAIL_IDENTITY, input);

export const ses = /* @__PURE__ */ processWide(() =>
  observed(
    'sesv2',
    new SignedClient({
      endpointId: 'SESV2',
      signingName: 'ses',
      apiVersion: '2019-09-27',
      defaultEndpoint: (region) => `https://email.${region}.amazonaws.com`,
      uriEscapePath: true,
      applyChecksum: false,
    }),
  ),
);
