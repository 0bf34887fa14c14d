/**
 * What the local runtime provisions before it starts the handlers, as a deployment's stateful stack would: the table,
 * the queues (with their DLQs and redrive), the master secret; and the listening helpers of its servers.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { CreateTableCommand, DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { TABLE_SCHEMA } from '#shared/adapters/dynamodb/table-schema.ts';
import { QUEUES, type QueueName } from '#shared/catalog/queues.ts';

export const REGION = 'us-east-1';
export const TABLE_NAME = 'storeflow-local';
export const MASTER_KEY_SECRET_ID = 'storeflow/local/master-key';
export const IMPORTS_BUCKET = 'storeflow-local-imports';

export const listen = async (server: Server, port: number): Promise<number> => {
  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolvePromise());
  });
  return (server.address() as AddressInfo).port;
};

export const closeServer = (server: Server) =>
  new Promise<void>((resolvePromise) => {
    server.close(() => resolvePromise());
    server.closeAllConnections();
  });

/** The master secret: generated once per state directory, like the Secrets Manager secret of a deployment. */
export const masterSecret = (dataDir: string | undefined): string => {
  const fresh = () => randomBytes(48).toString('base64url');
  if (!dataDir) return fresh();
  const file = join(dataDir, 'master-key.secret');
  if (!existsSync(file)) writeFileSync(file, fresh(), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
};

export const ensureTable = async (client: DynamoDBClient) => {
  try {
    await client.send(new DescribeTableCommand({ TableName: TABLE_NAME }));
    return;
  } catch (error) {
    if (!(error instanceof Error && error.name === 'ResourceNotFoundException')) throw error;
  }
  const { partitionKey, sortKey, globalSecondaryIndexes } = TABLE_SCHEMA;
  const attributes = new Set<string>([
    partitionKey,
    sortKey,
    ...globalSecondaryIndexes.flatMap((g) => [g.partitionKey, g.sortKey]),
  ]);
  await client.send(
    new CreateTableCommand({
      TableName: TABLE_NAME,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [...attributes].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      KeySchema: [
        { AttributeName: partitionKey, KeyType: 'HASH' },
        { AttributeName: sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: globalSecondaryIndexes.map((g) => ({
        IndexName: g.indexName,
        KeySchema: [
          { AttributeName: g.partitionKey, KeyType: 'HASH' },
          { AttributeName: g.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
    }),
  );
  // dynalite (created with createTableMs: 0) still reports CREATING for a tick.
  for (let i = 0; i < 50; i++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: TABLE_NAME }));
    if (Table?.TableStatus === 'ACTIVE') return;
    await new Promise((r) => setTimeout(r, 20));
  }
};

/**
 * fauxqs builds queue URLs as `http://sqs.<region>.<host>:<port>/…`, which with an IP host is not a valid URL (the SDK
 * warns on every call) and with `localhost` does not resolve. It finds queues by name whatever the host, so the URLs
 * handed out are put on the SQS endpoint itself; rebuilt at every start, they also follow a changed port.
 */
const onEndpoint = (queueUrl: string | undefined, endpoint: string): string =>
  (queueUrl ?? '').replace(/^https?:\/\/[^/]+/, endpoint);

export const ensureQueues = async (
  client: SQSClient,
  endpoint: string,
  visibility: Partial<Record<QueueName, number>> = {},
) => {
  const urls = {} as Record<QueueName, string>;
  const dlqs = {} as Record<QueueName, string>;
  const arns = {} as Record<QueueName, string>;
  const dlqArns = {} as Record<QueueName, string>;
  for (const [name, spec] of Object.entries(QUEUES) as [QueueName, (typeof QUEUES)[QueueName]][]) {
    const suffix = spec.fifo ? '.fifo' : '';
    const fifo = spec.fifo ? { FifoQueue: 'true' } : {};
    const dlq = await client.send(
      new CreateQueueCommand({
        QueueName: `storeflow-${name}-dlq${suffix}`,
        Attributes: { ...fifo, MessageRetentionPeriod: '1209600' },
      }),
    );
    const dlqUrl = onEndpoint(dlq.QueueUrl, endpoint);
    const { Attributes } = await client.send(
      new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }),
    );
    const queue = await client.send(
      new CreateQueueCommand({
        QueueName: `storeflow-${name}${suffix}`,
        Attributes: {
          ...fifo,
          VisibilityTimeout: String(visibility[name] ?? spec.visibilityTimeoutSeconds),
          RedrivePolicy: JSON.stringify({
            deadLetterTargetArn: Attributes?.QueueArn,
            maxReceiveCount: spec.maxReceiveCount,
          }),
        },
      }),
    );
    urls[name] = onEndpoint(queue.QueueUrl, endpoint);
    dlqs[name] = dlqUrl;
    dlqArns[name] = Attributes?.QueueArn ?? '';
    const own = await client.send(
      new GetQueueAttributesCommand({ QueueUrl: urls[name], AttributeNames: ['QueueArn'] }),
    );
    arns[name] = own.Attributes?.QueueArn ?? '';
  }
  return { urls, dlqs, arns, dlqArns };
};
