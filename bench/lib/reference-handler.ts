/**
 * The cold-start reference of the bundles scenario: a handler that only imports the DynamoDB client, the
 * least any function of the service loads. A function whose module init takes more than 1.5 × this one's CPU, in the
 * same run, loads something it should load lazily or not at all.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';

export const handler = async (): Promise<string> => DynamoDBClient.name;
