import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { AttributeType, Billing, ProjectionType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { TABLE_SCHEMA } from '#shared/adapters/dynamodb/table-schema.ts';
import { EXPORT_PAGES_PREFIX } from '#shared/catalog/function-spec.ts';
import type { QueueName } from '#shared/catalog/queues.ts';
import type { Stage } from '#shared/catalog/stage.ts';
import { emailEvents } from './constructs/email-events.ts';
import { queueOf, schedulerTargetQueue, serviceQueues } from './constructs/queues.ts';
import { PARAMETER_KEYS, publishParameter } from './constructs/references.ts';
import { timerSchedules } from './constructs/timers.ts';

/** Properties of the {@link StatefulStack}. */
export interface StatefulStackProps extends StackProps {
  readonly stage: Stage;
  /** The table's maximum on-demand throughput, from the stage file. */
  readonly tableLimits: { readonly maxReadRequestUnits: number; readonly maxWriteRequestUnits: number };
}

/**
 * Everything that holds data or pending work: the table, the imports bucket, the service master key, every queue and
 * DLQ, the timers' schedule group and the role Scheduler delivers with, and SES event publishing (configuration set,
 * topic, subscription). The other stacks (APIs, functions, alarms) can be replaced, renamed or torn down freely
 * without losing a stored record, a queued message or a waiting timer. Termination protection is on except in `dev`.
 */
export class StatefulStack extends Stack {
  /** The single DynamoDB table of the service. */
  readonly table: TableV2;
  /** Uploaded batch-import files (JSONL), kept only long enough to be processed. */
  readonly importsBucket: Bucket;
  /** Key that encrypts store API keys at rest (AES-256-GCM); webhook signing needs the keys back in clear. */
  readonly masterKey: Secret;
  /** Every catalog queue, each with its DLQ. */
  readonly queues: ReadonlyMap<QueueName, Queue>;

  constructor(scope: Construct, id: string, props: StatefulStackProps) {
    // Only a developer's own stage may lose its data with the stack; test and prod data survive a `cdk destroy`.
    const disposable = props.stage === 'dev';
    super(scope, id, { ...props, terminationProtection: !disposable });
    const { stage } = props;
    const removalPolicy = disposable ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;

    this.table = new TableV2(this, 'Table', {
      partitionKey: { name: TABLE_SCHEMA.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE_SCHEMA.sortKey, type: AttributeType.STRING },
      billing: Billing.onDemand(props.tableLimits),
      globalSecondaryIndexes: TABLE_SCHEMA.globalSecondaryIndexes.map((gsi) => ({
        indexName: gsi.indexName,
        partitionKey: { name: gsi.partitionKey, type: AttributeType.STRING },
        sortKey: { name: gsi.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType.ALL,
      })),
      timeToLiveAttribute: TABLE_SCHEMA.timeToLiveAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: !disposable,
      removalPolicy,
    });

    this.importsBucket = new Bucket(this, 'Imports', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      encryption: BucketEncryption.S3_MANAGED,
      lifecycleRules: [
        {
          id: 'expire-uploads',
          // An import is processed within minutes; a week leaves room to investigate a failed one, then the
          // contacts' personal data goes away.
          expiration: Duration.days(7),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
        {
          id: 'expire-export-pages',
          // Oversized export pages are fetched within minutes through a 5-minute link; a day is S3's shortest expiry.
          prefix: EXPORT_PAGES_PREFIX,
          expiration: Duration.days(1),
        },
      ],
      removalPolicy,
      autoDeleteObjects: disposable,
    });

    this.masterKey = new Secret(this, 'MasterKey', {
      description: `Storeflow ${stage}: master key encrypting store API keys at rest`,
      // Alphanumeric so it survives any shell, env file or JSON without escaping; 64 chars carry ~380 bits.
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      // Losing it makes every stored API key unreadable, so it outlives the stack except in dev.
      removalPolicy,
    });

    // Queues (pending work), the schedule group (waiting timers) and SES event publishing outlive a replacement or a
    // removal from the template: RETAIN, except in dev.
    this.queues = serviceQueues(this, stage, removalPolicy);
    const timers = timerSchedules(this, stage, queueOf(this.queues, schedulerTargetQueue()), removalPolicy);
    const configurationSet = emailEvents(this, stage, queueOf(this.queues, 'emailEvents'), removalPolicy);

    // What the other stacks of the stage read (see constructs/references.ts): values AWS generates.
    publishParameter(this, stage, PARAMETER_KEYS.tableName, this.table.tableName, 'the service table');
    publishParameter(this, stage, PARAMETER_KEYS.importsBucketName, this.importsBucket.bucketName, 'imports bucket');
    publishParameter(this, stage, PARAMETER_KEYS.masterKeySecretArn, this.masterKey.secretArn, 'master key secret');
    publishParameter(this, stage, PARAMETER_KEYS.schedulerRoleArn, timers.role.roleArn, 'Scheduler delivery role');

    new CfnOutput(this, 'TableName', { value: this.table.tableName, description: 'The service table' });
    new CfnOutput(this, 'ImportsBucketName', {
      value: this.importsBucket.bucketName,
      description: 'Bucket of batch-import uploads',
    });
    new CfnOutput(this, 'MasterKeySecretArn', {
      value: this.masterKey.secretArn,
      description: 'Secret holding the master key that encrypts store API keys',
    });
    new CfnOutput(this, 'SesConfigurationSetName', {
      value: configurationSet.configurationSetName,
      description: 'SES configuration set every message is sent with (event publishing to the email-events queue)',
    });
  }
}
