import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { type CfnStage, HttpApi, HttpMethod, PayloadFormatVersion } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { CfnScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { ConfigurationSet, EmailSendingEvent, EventDestination, SuppressionReasons } from 'aws-cdk-lib/aws-ses';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { SqsSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { FUNCTIONS, type FunctionSpec, type QueueFunction, type Uses } from '#shared/catalog/functions.ts';
import { HOSTS, type Host } from '#shared/catalog/hosts.ts';
import { QUEUES, type QueueName, type QueueSpec } from '#shared/catalog/queues.ts';
import type { Stage } from '#shared/catalog/stage.ts';
import { CustomDomains, type CustomDomainsConfig } from './constructs/custom-domains.ts';
import { Observability } from './constructs/observability.ts';
import { type MailBinding, type SchedulerBinding, ServiceFunction } from './constructs/service-function.ts';

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
  /** Each host's public base URL: its custom domain when configured, else the API's endpoint. */
  readonly publicUrls: Readonly<Record<Host, string>>;
  readonly observability: Observability;

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
      this.logAccess(apis[host], stage);
    }
    this.apis = apis;
    this.publicUrls = new CustomDomains(this, 'CustomDomains', {
      apis,
      ...(props.customDomains ? { config: props.customDomains } : {}),
    }).urls;

    const queues = new Map<QueueName, Queue>();
    for (const [name, spec] of Object.entries(QUEUES) as [QueueName, QueueSpec][]) {
      queues.set(name, this.createQueue(name, spec));
    }
    this.queues = queues;
    const timers = this.createTimers(stage);
    const mail = this.createEmailEvents(stage, this.publicUrls.sending);

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
      if (spec.uses.mailer) fn.useMailer(mail);
      if (spec.uses.sesIdentities) fn.useSesIdentities();
      // The API's endpoint depends on the API alone (not on its routes), so a function routed on the host it names
      // creates no dependency cycle.
      if (spec.uses.publicMainUrl) fn.usePublicMainUrl(this.publicUrls.main);
      if (spec.uses.publicUrls) {
        fn.usePublicUrls(this.publicUrls);
      }

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

  /**
   * Access logs of the API's default stage, JSON, in a log group of its own (same retention as the functions'). The
   * route key, never the path: paths carry unsubscribe tokens. Set on the L1 stage because `HttpApi` offers no access
   * log option for the stage it creates itself.
   */
  private logAccess(api: HttpApi, stage: Stage): void {
    const logGroup = new LogGroup(api, 'AccessLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: stage === 'dev' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    });
    const cfnStage = api.defaultStage?.node.defaultChild as CfnStage | undefined;
    if (!cfnStage) throw new Error(`API ${api.node.id} has no default stage to log`);
    cfnStage.accessLogSettings = {
      destinationArn: logGroup.logGroupArn,
      format: JSON.stringify({
        requestId: '$context.requestId',
        time: '$context.requestTimeEpoch',
        ip: '$context.identity.sourceIp',
        route: '$context.routeKey',
        status: '$context.status',
        bytes: '$context.responseLength',
        latencyMs: '$context.responseLatency',
        integrationMs: '$context.integrationLatency',
        integrationError: '$context.integrationErrorMessage',
      }),
    };
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

  /**
   * SES event publishing: a configuration set per stage whose delivery, bounce, complaint, open, click, subscription,
   * reject and rendering-failure events go to an SNS topic, which the `emailEvents` queue subscribes (SNS envelope
   * kept: the worker reads the envelope, and a raw delivery too). Send and DeliveryDelay events are not published: no
   * callback reports them. The topic accepts SES's publishes for this configuration set only (the L2 adds that policy).
   */
  private createEmailEvents(stage: Stage, sendingUrl: string): MailBinding {
    const configurationSet = new ConfigurationSet(this, 'EmailConfigurationSet', {
      configurationSetName: `storeflow-${stage}`,
      reputationMetrics: true,
      // The account-level list only for bounces: a bounced address is bad for every store, while a complaint is about
      // one store's mail (the service suppresses it for that store alone).
      suppressionReasons: SuppressionReasons.BOUNCES_ONLY,
    });
    const topic = new Topic(this, 'EmailEventsTopic', {
      displayName: `Storeflow ${stage}: SES events`,
      enforceSSL: true,
    });
    topic.addSubscription(new SqsSubscription(this.queueOf('emailEvents'), { rawMessageDelivery: false }));
    configurationSet.addEventDestination('ToEmailEvents', {
      destination: EventDestination.snsTopic(topic),
      events: [
        EmailSendingEvent.DELIVERY,
        EmailSendingEvent.BOUNCE,
        EmailSendingEvent.COMPLAINT,
        EmailSendingEvent.OPEN,
        EmailSendingEvent.CLICK,
        EmailSendingEvent.SUBSCRIPTION,
        EmailSendingEvent.REJECT,
        EmailSendingEvent.RENDERING_FAILURE,
      ],
    });
    new CfnOutput(this, 'EmailEventsTopicArn', { value: topic.topicArn, description: 'SNS topic of the SES events' });
    return { configurationSetName: configurationSet.configurationSetName, sendingUrl };
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
