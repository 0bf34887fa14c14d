/**
 * SDK clients, created once per process on first use. Endpoints come from the standard `AWS_ENDPOINT_URL_*`
 * variables (the local runtime sets them to its emulators); there is no local branch here.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

let documentClient: DynamoDBDocumentClient | undefined;
let sqsClient: SQSClient | undefined;
let secretsClient: SecretsManagerClient | undefined;

export const dynamo = (): DynamoDBDocumentClient => {
  documentClient ??= DynamoDBDocumentClient.from(new DynamoDBClient({}), {
    marshallOptions: { removeUndefinedValues: true },
  });
  return documentClient;
};

export const sqs = (): SQSClient => {
  sqsClient ??= new SQSClient({});
  return sqsClient;
};

export const secretsManager = (): SecretsManagerClient => {
  secretsClient ??= new SecretsManagerClient({});
  return secretsClient;
};
