import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { type IRole, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { LAMBDA_BUNDLING, LAMBDA_NODE_OPTIONS } from '#infra/bundling.ts';
import { RATE_KEY_PREFIX } from '#shared/adapters/dynamodb/keys.ts';
import { EXPORT_PAGES_PREFIX, type Uses } from '#shared/catalog/function-spec.ts';
import { STAGE_TAG_KEY } from '#shared/catalog/stage.ts';
import { ENV } from '#shared/config.ts';

/** Repository root: catalog entries are relative to it, and it holds the lockfile esbuild resolves from. */
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Table access levels a catalog entry may ask for. */
export type TableAccess = NonNullable<Uses['table']>;

// The binding helpers take only the members they use. Besides least knowledge, this is what lets a concrete `TableV2`,
// `Queue` or `Secret` be passed under `exactOptionalPropertyTypes`: aws-cdk-lib's classes declare some optional members
// as `T | undefined` where its interfaces say `T`, so the classes are not assignable to the whole `ITableV2` etc.
/** A table a function can be bound to. */
export type BindableTable = Pick<ITableV2, 'tableName' | 'tableArn' | 'grant'>;

/** What `read` may do: items and queries (of the table and its indexes). No Scan: no function scans the table. */
export const TABLE_READ_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:ConditionCheckItem',
] as const;
/** What `readWrite` adds. */
export const TABLE_WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
] as const;

/** A queue a function can send to. */
export type BindableQueue = Pick<IQueue, 'queueUrl' | 'grantSendMessages'>;
/** A bucket a function can be bound to. */
export type BindableBucket = Pick<IBucket, 'bucketName' | 'bucketArn' | 'arnForObjects'>;
/** A secret a function can read. */
export type BindableSecret = Pick<ISecret, 'secretArn' | 'grantRead'>;

/**
 * The timers: the schedule group functions write to, the role Scheduler delivers with, the target queue, and the
 * queue Scheduler puts a timer in when it cannot deliver it (the target's DLQ).
 */
export interface SchedulerBinding {
  readonly groupName: string;
  readonly role: IRole;
  readonly queueArn: string;
  readonly deadLetterQueueArn: string;
}

/** What sending functions are bound to: the stage's SES configuration set and the sending host's public URL. */
export interface MailBinding {
  readonly configurationSetName: string;
  readonly sendingUrl: string;
}

/** Properties of a {@link ServiceFunction}. */
export interface ServiceFunctionProps {
  /** Catalog name (kebab-case); shown in the function description. */
  readonly name: string;
  /** The Lambda's name (`storeflow-<stage>-<name>`): alarms in another stack find it by this name. */
  readonly functionName: string;
  /** Module exporting `handler`, relative to the repository root. */
  readonly entry: string;
  /** Deployment stage, passed to the handler as `STAGE`. */
  readonly stage: string;
  readonly timeout: Duration;
  readonly memorySize: number;
  /** What happens to the log group when the stack goes away. Default RETAIN, so logs outlive a deleted stack. */
  readonly logRemovalPolicy?: RemovalPolicy;
  /** Concurrency set aside for this function alone, and its ceiling (`RESERVED_CONCURRENCY`). Default: none. */
  readonly reservedConcurrentExecutions?: number;
}

/**
 * One Lambda of the service with the defaults every function shares (Node 24 on arm64, ESM bundle with source maps,
 * its own log group with retention, Powertools environment), plus binding helpers that set a resource's environment
 * variable and its IAM grant in one call, so a function never gets a variable without the permission or vice versa.
 */
export class ServiceFunction extends Construct {
  readonly lambda: NodejsFunction;
  readonly logGroup: LogGroup;
  /** The function's own execution role: it may write its log group and what the binding helpers grant, nothing else. */
  readonly role: Role;
  readonly #stage: string;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    this.#stage = props.stage;

    // An explicit log group (instead of the implicit /aws/lambda/<name> one) is the only way to get retention
    // without the LogRetention custom resource; a month covers incident analysis without paying to keep noise.
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.RETAIN,
    });

    // Instead of the default role's AWSLambdaBasicExecutionRole (create any log group, write to any): this log group.
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Storeflow ${props.name} (${props.stage})`,
    });
    this.logGroup.grantWrite(this.role);

    this.lambda = new NodejsFunction(this, 'Function', {
      functionName: props.functionName,
      description: `Storeflow ${props.name} (${props.stage})`,
      entry: join(REPO_ROOT, props.entry),
      handler: 'handler',
      projectRoot: REPO_ROOT,
      depsLockFilePath: join(REPO_ROOT, 'package-lock.json'),
      runtime: Runtime.NODEJS_24_X,
      // Graviton: cheaper per GB-second and at least as fast for this I/O-bound code.
      architecture: Architecture.ARM_64,
      timeout: props.timeout,
      memorySize: props.memorySize,
      ...(props.reservedConcurrentExecutions === undefined
        ? {}
        : { reservedConcurrentExecutions: props.reservedConcurrentExecutions }),
      logGroup: this.logGroup,
      role: this.role,
      environment: {
        NODE_OPTIONS: LAMBDA_NODE_OPTIONS,
        POWERTOOLS_SERVICE_NAME: 'storeflow',
        POWERTOOLS_LOG_LEVEL: 'INFO',
        [ENV.stage]: props.stage,
      },
      // The settings (and why) are in infra/bundling.ts, shared with the bundle benchmark that measures them.
      bundling: { ...LAMBDA_BUNDLING, format: OutputFormat.ESM, mainFields: [...LAMBDA_BUNDLING.mainFields] },
    });
  }

  /** Grants `access` to the table (and its indexes) with explicit actions, and sets `TABLE_NAME`. */
  useTable(table: BindableTable, access: TableAccess): this {
    const actions = access === 'read' ? TABLE_READ_ACTIONS : [...TABLE_READ_ACTIONS, ...TABLE_WRITE_ACTIONS];
    table.grant(this.lambda, ...actions);
    this.lambda.addEnvironment(ENV.tableName, table.tableName);
    return this;
  }

  /**
   * Lets the function add to rate counters and write nothing else: UpdateItem on items whose partition key starts
   * with `RATE#` (IAM's `dynamodb:LeadingKeys` condition).
   */
  useRateCounters(table: BindableTable): this {
    this.lambda.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:UpdateItem'],
        resources: [table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${RATE_KEY_PREFIX}*`] } },
      }),
    );
    return this;
  }

  /** Grants sending to the queue and sets its URL in `urlEnv`. */
  sendTo(queue: BindableQueue, urlEnv: string): this {
    queue.grantSendMessages(this.lambda);
    this.lambda.addEnvironment(urlEnv, queue.queueUrl);
    return this;
  }

  /**
   * Lets the function create and update schedules in the timers group (nothing else in Scheduler) and pass the
   * delivery role to Scheduler; sets `SCHEDULE_GROUP`, `SCHEDULER_ROLE_ARN`, `TIMERS_QUEUE_ARN` and `TIMERS_DLQ_ARN`.
   */
  useScheduler(timers: SchedulerBinding): this {
    this.lambda.addToRolePolicy(
      new PolicyStatement({
        actions: ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule'],
        resources: [
          `arn:${Stack.of(this).partition}:scheduler:${Stack.of(this).region}:${Stack.of(this).account}:schedule/${timers.groupName}/*`,
        ],
      }),
    );
    timers.role.grantPassRole(this.lambda.grantPrincipal);
    this.lambda.addEnvironment(ENV.scheduleGroup, timers.groupName);
    this.lambda.addEnvironment(ENV.schedulerRoleArn, timers.role.roleArn);
    this.lambda.addEnvironment(ENV.timersQueueArn, timers.queueArn);
    this.lambda.addEnvironment(ENV.timersDlqArn, timers.deadLetterQueueArn);
    return this;
  }

  /**
   * Grants the imports bucket and sets its name. `write`: PutObject (also what an upload URL it signs needs); `read`:
   * GetObject, and ListBucket so that a missing upload answers 404 NotFound rather than 403 (`exists()` relies on it).
   * Explicit actions rather than `grantPut`/`grantRead`, whose `s3:Abort*`, `s3:GetBucket*`, `s3:List*` are more.
   */
  useImportsBucket(bucket: BindableBucket, access: 'read' | 'write'): this {
    const objects = bucket.arnForObjects('*');
    if (access === 'write') {
      this.lambda.addToRolePolicy(new PolicyStatement({ actions: ['s3:PutObject'], resources: [objects] }));
    } else {
      this.lambda.addToRolePolicy(new PolicyStatement({ actions: ['s3:GetObject'], resources: [objects] }));
      this.lambda.addToRolePolicy(new PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucket.bucketArn] }));
    }
    this.lambda.addEnvironment(ENV.importsBucket, bucket.bucketName);
    return this;
  }

  /** Grants putting and reading objects under `export-pages/` of the imports bucket (oversized export pages). */
  useExportPages(bucket: BindableBucket): this {
    this.lambda.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:PutObject', 's3:GetObject'],
        resources: [bucket.arnForObjects(`${EXPORT_PAGES_PREFIX}*`)],
      }),
    );
    this.lambda.addEnvironment(ENV.importsBucket, bucket.bucketName);
    return this;
  }

  /** Grants reading the secret's value and sets its ARN in `idEnv` (default `MASTER_KEY_SECRET_ID`). */
  readSecret(secret: BindableSecret, idEnv: string = ENV.masterKeySecretId): this {
    secret.grantRead(this.lambda);
    this.lambda.addEnvironment(idEnv, secret.secretArn);
    return this;
  }

  /**
   * Lets the function send email through SES (SESv2 `SendEmail`, `SendBulkEmail`) from the account's identities and
   * with the stage's configuration set only (SES authorizes a send against both), and sets `SES_CONFIGURATION_SET`
   * and `PUBLIC_SENDING_URL` (unsubscribe links point at the sending host).
   */
  useMailer(mail: MailBinding): this {
    const stack = Stack.of(this);
    this.lambda.addToRolePolicy(
      new PolicyStatement({
        actions: ['ses:SendEmail', 'ses:SendBulkEmail'],
        resources: [
          stack.formatArn({ service: 'ses', resource: 'identity', resourceName: '*' }),
          stack.formatArn({ service: 'ses', resource: 'configuration-set', resourceName: mail.configurationSetName }),
        ],
      }),
    );
    this.lambda.addEnvironment(ENV.sesConfigurationSet, mail.configurationSetName);
    this.lambda.addEnvironment(ENV.publicSendingUrl, mail.sendingUrl);
    return this;
  }

  /**
   * Lets the function register, read and remove SES email identities (sending domains): it reads any identity of the
   * account (to tell another stage's or the operator's apart), creates them only tagged with its stage, and deletes only
   * those that carry its stage, so one stage can never remove another's or the operator's identity.
   */
  useSesIdentities(): this {
    const identities = Stack.of(this).formatArn({ service: 'ses', resource: 'identity', resourceName: '*' });
    const stage = this.#stage;
    this.lambda.addToRolePolicy(new PolicyStatement({ actions: ['ses:GetEmailIdentity'], resources: [identities] }));
    this.lambda.addToRolePolicy(
      new PolicyStatement({
        actions: ['ses:CreateEmailIdentity', 'ses:TagResource'],
        resources: [identities],
        conditions: {
          StringEquals: { [`aws:RequestTag/${STAGE_TAG_KEY}`]: stage },
          'ForAllValues:StringEquals': { 'aws:TagKeys': [STAGE_TAG_KEY] },
        },
      }),
    );
    this.lambda.addToRolePolicy(
      new PolicyStatement({
        actions: ['ses:DeleteEmailIdentity'],
        resources: [identities],
        conditions: { StringEquals: { [`aws:ResourceTag/${STAGE_TAG_KEY}`]: stage } },
      }),
    );
    return this;
  }

  /** Sets `PUBLIC_MAIN_URL`, `PUBLIC_FRONT_URL` and `PUBLIC_SENDING_URL`: every host's public base URL. */
  usePublicUrls(urls: { readonly main: string; readonly front: string; readonly sending: string }): this {
    this.lambda.addEnvironment(ENV.publicMainUrl, urls.main);
    this.lambda.addEnvironment(ENV.publicFrontUrl, urls.front);
    this.lambda.addEnvironment(ENV.publicSendingUrl, urls.sending);
    return this;
  }

  /** Sets `PUBLIC_MAIN_URL`, the main host's public base URL. */
  usePublicMainUrl(url: string): this {
    this.lambda.addEnvironment(ENV.publicMainUrl, url);
    return this;
  }
}
