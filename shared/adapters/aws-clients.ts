/**
 * SDK clients, created once per process on first use. Endpoints come from the standard `AWS_ENDPOINT_URL_*`
 * variables (the local runtime sets them to its emulators); there is no local branch here. Each is shown to the
 * client observers (`client-observers.ts`) as it is made.
 *
 * Each factory call is marked pure, so a bundle keeps only the clients its function uses: without the mark, esbuild
 * must keep every `processWide(…)` call and with it every client's package, which each cold start then loads.
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { processWide } from '#shared/lazy.ts';
import { observed } from './client-observers.ts';
import { DynamoDBDocumentClient } from './dynamodb-client.ts';
import { SQSClient } from './sqs-client.ts';

/**
 * DynamoDB through the service's own document client (`dynamodb-client.ts`: lib-dynamodb's commands and wire format at
 * a fraction of the SDK's CPU per call).
 */
export const dynamo = /* @__PURE__ */ processWide(() =>
  observed(
    'dynamodb',
    new DynamoDBDocumentClient({
      // A JSON object with an own `constructor` key (free-form event data may have one) is still a plain map: without
      // this option the marshaller takes it for a class instance and throws, and the event could never be applied.
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: true },
    }),
  ),
);

/** SQS through the service's own client (`sqs-client.ts`: the SDK's commands, wire format and MD5 checks). */
export const sqs = /* @__PURE__ */ processWide(() => observed('sqs', new SQSClient()));

export const secretsManager = /* @__PURE__ */ processWide(() =>
  observed('secretsManager', new SecretsManagerClient({})),
);

export const sesv2 = /* @__PURE__ */ processWide(() => observed('sesv2', new SESv2Client({})));
