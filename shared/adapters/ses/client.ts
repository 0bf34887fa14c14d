/**
 * The service's SESv2 client (one per process, observed as `sesv2`): the operations the service calls (`SendEmail`,
 * `SendBulkEmail`, and `Get`/`Create`/`DeleteEmailIdentity` for sender domains) on the small client of
 * `../signed-client.ts` instead of `@aws-sdk/client-sesv2`, whose model (every shape and error of the SESv2 API) is
 * ~60 kB of each bundle that sends mail or checks a sender: flow-worker, send-worker, campaigns-create, senders-*…
 * (cold starts).
 *
 * SESv2 is REST with JSON bodies whose keys are the SDK's member names (`jsonOperation`): a request body is the SDK
 * command's input as JSON (minus the members bound to the path), the answer's JSON is the output (timestamps stay epoch
 * seconds, not `Date`s: the service reads none). Errors are named as the SDK names them (`MessageRejected`,
 * `TooManyRequestsException`…), with the status in `$metadata.httpStatusCode`, so the mailer classifies them as before.
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
import { escapeUri, jsonOperation, OperationCommand, restJsonClient } from '#shared/adapters/signed-client.ts';

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

export const ses = /* @__PURE__ */ restJsonClient('sesv2', {
  endpointId: 'SESV2',
  signingName: 'ses',
  apiVersion: '2019-09-27',
  defaultEndpoint: (region) => `https://email.${region}.amazonaws.com`,
});
