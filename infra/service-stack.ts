import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { HttpApi, HttpMethod, PayloadFormatVersion } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { CfnScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { Stage } from './app.ts';
import {
  FUNCTIONS,
  type FunctionSpec,
  HOSTS,
  type Host,
  QUEUES,
  type QueueFunction,
  type QueueName,
  type QueueSpec,
  type Uses,
} from './catalog.ts';
import { type SchedulerBinding, ServiceFunction } from './constructs/service-function.ts';

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
}

/** `events-ingest` → `EventsIngest`, `main` → `Main`: construct ids and output keys are PascalCase. */
export const pascalCase = (kebab: string): string =>
  kebab
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');

/** FIFO queues cap a batch at 10 records (an SQS limit on ReceiveMessage for FIFO event sources). */
const FIFO_MAX_BATCH = 10;

/**
 * The stateless part of the service, built entirely from the function catalog: one HTTP API per host, one queue (with
 * its DLQ) per catalog queue, one Lambda per catalog function with the routes, event source and grants it declares.
 * Adding a function or queue to the catalog needs no change here.
 */
export class ServiceStack extends Stack {
  readonly apis: Readonly<Record<Host, HttpApi>>;
  readonly queues: ReadonlyMap<QueueName, Queue>;
  readonly functions: ReadonlyMap<string, ServiceFunction>;

  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, props);
    const { stage } = props;

    const apis = {} as Record<Host, HttpApi>;
    for (const host of HOSTS) {
      apis[host] = new HttpApi(this, `${pascalCase(host)}Api`, {
        apiName: `storeflow-${stage}-${host}`,
        description: `Storeflow ${stage}: ${host} host`,
        // Every request reaches a Lambda that authenticates it itself (architecture §3), so no authorizer here.
        createDefaultStage: true,
      });
    }
    this.apis = apis;

    const queues = new Map<QueueName, Queue>();
    for (const [name, spec] of Object.entries(QUEUES) as [QueueName, QueueSpec][]) {
      queues.set(name, this.createQueue(name, spec));
    }
    this.queues = queues;
    const timers = this.createTimers(stage);

    const functions = new Map<string, ServiceFunction>();
    for (const spec of FUNCTIONS as readonly FunctionSpec[]) {
      const fn = new ServiceFunction(this, pascalCase(spec.name), {
        name: spec.name,
        entry: spec.entry,
        stage,
        timeout: Duration.seconds(spec.timeoutSeconds),
        memorySize: spec.memoryMb,
        logRemovalPolicy: stage === 'dev' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
      });

      // Grants come from `uses` only: a function that does not declare a resource gets neither access nor its name.
      if (spec.uses.table) fn.useTable(props.table, spec.uses.table);
      for (const target of spec.uses.sendTo ?? []) fn.sendTo(this.queueOf(target), QUEUES[target].urlEnv);
      if (spec.uses.masterKey) fn.readSecret(props.masterKey);
      if ((spec.uses as Uses).scheduler) fn.useScheduler(timers);
      if (spec.uses.importsBucket) fn.useImportsBucket(props.importsBucket, spec.uses.importsBucket);

      if (spec.kind === 'http') {
        // An integration belongs to one API, so a function routed on several hosts gets one per host.
        const integrations = new Map<Host, HttpLambdaIntegration>();
        for (const route of spec.routes) {
          let integration = integrations.get(route.host);
          if (!integration) {
            integration = new HttpLambdaIntegration(`${pascalCase(spec.name)}${pascalCase(route.host)}`, fn.lambda, {
              payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
            });
            integrations.set(route.host, integration);
          }
          apis[route.host].addRoutes({ path: route.path, methods: [HttpMethod[route.method]], integration });
        }
      } else {
        this.assertConsumerFits(spec);
        fn.lambda.addEventSource(
          new SqsEventSource(this.queueOf(spec.queue), {
            batchSize: spec.batchSize,
            // Handlers answer with the failed message ids, so one bad record does not send the whole batch back.
            reportBatchItemFailures: true,
          }),
        );
        // A consumer may hold a message back (ChangeMessageVisibility, granted by the event source): it needs the URL.
        fn.lambda.addEnvironment(QUEUES[spec.queue].urlEnv, this.queueOf(spec.queue).queueUrl);
      }
      functions.set(spec.name, fn);
    }
    this.functions = functions;

    for (const host of HOSTS) {
      const front = host === 'front' && stage === 'test' ? ' ({front_test_url})' : '';
      new CfnOutput(this, `${pascalCase(host)}Url`, {
        // apiEndpoint has no trailing slash, so `${url}/api/v1/...` composes as the spec writes it.
        value: apis[host].apiEndpoint,
        description: `Base URL of the ${host} host${front}`,
      });
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
  }

  private createQueue(name: QueueName, spec: QueueSpec): Queue {
    const id = pascalCase(name);
    // A FIFO queue's DLQ must be FIFO too. Content-based dedup stays off: the producer sets MessageDeduplicationId
    // itself, and hashing bodies would wrongly drop two legitimately equal events.
    const fifo = spec.fifo ? { fifo: true, contentBasedDeduplication: false } : {};
    const deadLetterQueue = new Queue(this, `${id}Dlq`, {
      ...fifo,
      // The longest SQS allows: time to notice, inspect and redrive failed messages.
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    return new Queue(this, `${id}Queue`, {
      ...fifo,
      visibilityTimeout: Duration.seconds(spec.visibilityTimeoutSeconds),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: spec.maxReceiveCount },
    });
  }

  /**
   * The one-time timers: a schedule group per stage, and the role EventBridge Scheduler assumes to deliver fired
   * schedules to the catalog's `schedulerTarget` queue (it may send there and nowhere else).
   */
  private createTimers(stage: Stage): SchedulerBinding {
    const target = Object.entries(QUEUES).find(([, spec]) => (spec as QueueSpec).schedulerTarget);
    if (!target) throw new Error('No queue in the catalog is the scheduler target');
    const queue = this.queueOf(target[0] as QueueName);
    const group = new CfnScheduleGroup(this, 'TimersGroup', { name: `storeflow-${stage}` });
    const role = new Role(this, 'SchedulerRole', {
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': this.account } },
      }),
      description: `Storeflow ${stage}: EventBridge Scheduler delivers fired timers to the timers queue`,
    });
    queue.grantSendMessages(role);
    return { groupName: group.name ?? `storeflow-${stage}`, groupArn: group.attrArn, role, queueArn: queue.queueArn };
  }

  private queueOf(name: QueueName): Queue {
    const queue = this.queues.get(name);
    if (!queue) throw new Error(`Catalog names queue "${name}", which QUEUES does not define`);
    return queue;
  }

  /** Catalog mistakes that AWS would only reject at deploy time (or never, silently redelivering) fail the synth. */
  private assertConsumerFits(spec: QueueFunction): void {
    const queue = QUEUES[spec.queue];
    if (queue.visibilityTimeoutSeconds < spec.timeoutSeconds) {
      throw new Error(
        `Queue "${spec.queue}": visibility timeout ${queue.visibilityTimeoutSeconds}s is shorter than consumer ` +
          `"${spec.name}"'s timeout ${spec.timeoutSeconds}s, so messages would be redelivered while still in work`,
      );
    }
    if (queue.fifo && spec.batchSize > FIFO_MAX_BATCH) {
      throw new Error(`Consumer "${spec.name}": batch size ${spec.batchSize} exceeds ${FIFO_MAX_BATCH} on FIFO queue`);
    }
  }
}
