import { Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { AttributeType, Billing, ProjectionType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { TABLE_SCHEMA } from '#shared/adapters/dynamodb/table-schema.ts';
import type { Stage } from '#shared/catalog/stage.ts';

/** Properties of the {@link StatefulStack}. */
export interface StatefulStackProps extends StackProps {
  readonly stage: Stage;
}

/**
 * Everything that holds data: the table, the imports bucket and the service master key. Kept apart from the service
 * stack so functions and APIs can be replaced, renamed or torn down freely without putting data at risk.
 */
export class StatefulStack extends Stack {
  /** The single DynamoDB table of the service. */
  readonly table: TableV2;
  /** Uploaded batch-import files (JSONL), kept only long enough to be processed. */
  readonly importsBucket: Bucket;
  /** Key that encrypts store API keys at rest (AES-256-GCM); webhook signing needs the keys back in clear. */
  readonly masterKey: Secret;

  constructor(scope: Construct, id: string, props: StatefulStackProps) {
    super(scope, id, props);
    // Only a developer's own stage may lose its data with the stack; test and prod data survive a `cdk destroy`.
    const disposable = props.stage === 'dev';
    const removalPolicy = disposable ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;

    this.table = new TableV2(this, 'Table', {
      partitionKey: { name: TABLE_SCHEMA.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE_SCHEMA.sortKey, type: AttributeType.STRING },
      billing: Billing.onDemand(),
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
      ],
      removalPolicy,
      autoDeleteObjects: disposable,
    });

    this.masterKey = new Secret(this, 'MasterKey', {
      description: `Storeflow ${props.stage}: master key encrypting store API keys at rest`,
      // Alphanumeric so it survives any shell, env file or JSON without escaping; 64 chars carry ~380 bits.
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      // Losing it makes every stored API key unreadable, so it outlives the stack except in dev.
      removalPolicy,
    });
  }
}
