import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { HOSTS, type Host } from '#shared/catalog/hosts.ts';
import type { QueueName } from '#shared/catalog/queues.ts';
import type { Stage } from '#shared/catalog/stage.ts';
import { catalogFunctions } from './constructs/catalog-functions.ts';
import { CustomDomains, type CustomDomainsConfig } from './constructs/custom-domains.ts';
import { emailEvents } from './constructs/email-events.ts';
import { hostApis } from './constructs/http-apis.ts';
import { pascalCase } from './constructs/names.ts';
import { Observability } from './constructs/observability.ts';
import { queueOf, serviceQueues } from './constructs/queues.ts';
import type { ServiceFunction } from './constructs/service-function.ts';
import { timerSchedules } from './constructs/timers.ts';

/**
 * Properties of the {@link ServiceStack}: the stage and the stateful stack's resources. Concrete classes rather than
 * `ITableV2`/`IBucket`/`ISecret`: under `exactOptionalPropertyTypes` aws-cdk-lib's classes do not satisfy its own
 * interfaces (optional members typed `T | undefined` on one side, `T` on the other).
 */
export interface ServiceStackProps extends StackProps {
  readonly stage: Stage;
  readonly table: TableV2;
  readonly importsBucket: Bucket;
  readonly masterKey: Secret;
  /** Receives every alarm by email (SNS asks the address to confirm). */
  readonly alarmEmail?: string;
  /** Custom domain names for the hosts, with the ACM certificate (in the stack's region) that covers them. */
  readonly customDomains?: CustomDomainsConfig;
}

/**
 * The stateless part of the service, built entirely from the function catalog: one HTTP API per host, one queue (with
 * its DLQ) per catalog queue, one Lambda per catalog function with the routes, event source and grants it declares.
 * Adding a function or queue to the catalog needs no change here.
 */
export class ServiceStack extends Stack {
  readonly apis: Readonly<Record<Host, HttpApi>>;
  readonly queues: ReadonlyMap<QueueName, Queue>;
  readonly functions: ReadonlyMap<string, ServiceFunction>;
  /** Each host's public base URL: its custom domain when configured, else the API's endpoint. */
  readonly publicUrls: Readonly<Record<Host, string>>;
  readonly observability: Observability;

  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, props);
    const { stage } = props;

    const apis = hostApis(this, stage);
    this.apis = apis;
    this.publicUrls = new CustomDomains(this, 'CustomDomains', {
      apis,
      ...(props.customDomains ? { config: props.customDomains } : {}),
    }).urls;

    const queues = serviceQueues(this);
    this.queues = queues;
    const timers = timerSchedules(this, stage, queues);
    const mail = emailEvents(this, stage, queueOf(queues, 'emailEvents'), this.publicUrls.sending);

    const functions = catalogFunctions(this, {
      ...props,
      stage,
      apis,
      queues,
      publicUrls: this.publicUrls,
      timers,
      mail,
    });
    this.functions = functions;

    this.observability = new Observability(this, 'Observability', {
      stage,
      apis,
      queues: new Map(
        [...queues].map(([name, queue]) => {
          const deadLetterQueue = queue.deadLetterQueue?.queue;
          if (!deadLetterQueue) throw new Error(`Queue "${name}" has no DLQ`);
          return [name, { queue, deadLetterQueue }] as const;
        }),
      ),
      functions: new Map([...functions].map(([name, fn]) => [name, fn.lambda] as const)),
      table: props.table,
      ...(props.alarmEmail ? { alarmEmail: props.alarmEmail } : {}),
    });
    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.observability.alarmTopic.topicArn,
      description: 'SNS topic of every alarm: subscribe email, chat or paging to it',
    });
    new CfnOutput(this, 'DashboardName', {
      value: `storeflow-${stage}`,
      description: 'CloudWatch dashboard: APIs, queues, business metrics',
    });

    for (const host of HOSTS) {
      const front = host === 'front' && stage === 'test' ? ' ({front_test_url})' : '';
      new CfnOutput(this, `${pascalCase(host)}Url`, {
        // No trailing slash (apiEndpoint has none), so `${url}/api/v1/...` composes as the spec writes it.
        value: this.publicUrls[host],
        description: `Base URL of the ${host} host${front}`,
      });
    }
    // The test stage's front host is the spec's {front_test_url}: said by name as well.
    if (stage === 'test') {
      new CfnOutput(this, 'FrontTestUrl', { value: this.publicUrls.front, description: "The spec's {front_test_url}" });
    }
    new CfnOutput(this, 'TableName', { value: props.table.tableName, description: 'The service table' });
    new CfnOutput(this, 'ImportsBucketName', {
      value: props.importsBucket.bucketName,
      description: 'Bucket of batch-import uploads',
    });
    new CfnOutput(this, 'MasterKeySecretArn', {
      value: props.masterKey.secretArn,
      description: 'Secret holding the master key that encrypts store API keys',
    });
    new CfnOutput(this, 'SesConfigurationSetName', {
      value: mail.configurationSetName,
      description: 'SES configuration set every message is sent with (event publishing to the email-events queue)',
    });
  }
}
