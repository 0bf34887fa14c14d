/**
 * Weak references between the stacks of one stage. CloudFormation exports (what CDK makes when a construct of one
 * stack is passed to another) pin the producer: while any stack imports a value, the producer can neither change nor
 * drop it ("export ... cannot be updated as it is in use"), which turns moving a function between stacks into a
 * multi-step deploy. So no stack here imports another's export:
 *
 * - resources Storeflow names itself (functions, queues, the schedule group, the configuration set) are found by their
 *   name (`physicalName`, `queueNames`);
 * - values AWS generates (the table and bucket names, the secret's ARN, the Scheduler role's ARN, API ids and URLs) are
 *   published by their stack as SSM parameters under `/storeflow/<stage>/`, and read by the others as deploy-time
 *   parameters (`AWS::SSM::Parameter::Value<String>`), resolved again on every deploy of the reader.
 *
 * The reader stacks declare an explicit dependency on the producers (infra/app.ts), so `cdk deploy --all` orders them.
 */
import { ArnFormat, type Stack } from 'aws-cdk-lib';
import { HttpApi, type IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Metric, type MetricOptions } from 'aws-cdk-lib/aws-cloudwatch';
import { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { type IRole, Role } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { type IQueue, Queue } from 'aws-cdk-lib/aws-sqs';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import type { Construct } from 'constructs';
import { HOSTS, type Host } from '#shared/catalog/hosts.ts';
import { QUEUES, type QueueName, type QueueSpec } from '#shared/catalog/queues.ts';
import type { Stage } from '#shared/catalog/stage.ts';
import { pascalCase, physicalName, queueNames } from './names.ts';

/** The values published as SSM parameters, by key (the parameter is `/storeflow/<stage>/<key>`). */
export const PARAMETER_KEYS = {
  tableName: 'table-name',
  importsBucketName: 'imports-bucket-name',
  masterKeySecretArn: 'master-key-secret-arn',
  schedulerRoleArn: 'scheduler-role-arn',
  apiId: (host: Host) => `api-id/${host}`,
  publicUrl: (host: Host) => `public-url/${host}`,
} as const;

export const parameterName = (stage: Stage, key: string): string => `/storeflow/${stage}/${key}`;

/** Publishes `value` for the other stacks of the stage. */
export const publishParameter = (scope: Construct, stage: Stage, key: string, value: string, description: string) =>
  new StringParameter(scope, `Parameter${pascalCase(key.replace(/\//g, '-'))}`, {
    parameterName: parameterName(stage, key),
    stringValue: value,
    description: `Storeflow ${stage}: ${description}`,
  });

/** Reads a value another stack of the stage published (a deploy-time parameter of the reader's template). */
export const readParameter = (scope: Construct, stage: Stage, key: string): string =>
  StringParameter.valueForStringParameter(scope, parameterName(stage, key));

/** A catalog queue and its DLQ, found by name. */
export interface QueuePair {
  readonly queue: IQueue;
  readonly deadLetterQueue: IQueue;
}

/** What the alarms read of a function. */
export type FunctionMetrics = Pick<IFunction, 'metricErrors' | 'metricThrottles' | 'metricInvocations'>;

/** The configuration set's name (one per stage). */
export const configurationSetName = (stage: Stage): string => physicalName(stage, 'mail');

/** The schedule group's name (one per stage). */
export const scheduleGroupName = (stage: Stage): string => physicalName(stage, 'timers');

/** A function's name: `storeflow-<stage>-<catalog name>`. */
export const functionName = (stage: Stage, name: string): string => physicalName(stage, name);

/**
 * The stage's shared resources as seen from another stack, each created on first use (a stack that never asks for the
 * bucket reads no bucket parameter).
 */
export class StageReferences {
  readonly #scope: Stack;
  readonly #stage: Stage;
  readonly #cache = new Map<string, unknown>();

  constructor(scope: Stack, stage: Stage) {
    this.#scope = scope;
    this.#stage = stage;
  }

  #once<T>(key: string, make: () => T): T {
    if (!this.#cache.has(key)) this.#cache.set(key, make());
    return this.#cache.get(key) as T;
  }

  /** CDK keeps one deploy-time parameter per name and stack, however often it is read. */
  #read(key: string): string {
    return readParameter(this.#scope, this.#stage, key);
  }

  get table(): TableV2 {
    return this.#once('table', () =>
      TableV2.fromTableAttributes(this.#scope, 'Table', {
        tableName: this.#read(PARAMETER_KEYS.tableName),
        // Functions query the table's global secondary indexes too.
        grantIndexPermissions: true,
      }),
    ) as TableV2;
  }

  get importsBucket() {
    return this.#once('bucket', () =>
      Bucket.fromBucketName(this.#scope, 'ImportsBucket', this.#read(PARAMETER_KEYS.importsBucketName)),
    );
  }

  get masterKey() {
    return this.#once('secret', () =>
      Secret.fromSecretCompleteArn(this.#scope, 'MasterKey', this.#read(PARAMETER_KEYS.masterKeySecretArn)),
    );
  }

  get scheduleGroupName(): string {
    return scheduleGroupName(this.#stage);
  }

  get schedulerRole(): IRole {
    return this.#once('schedulerRole', () =>
      Role.fromRoleArn(this.#scope, 'SchedulerRole', this.#read(PARAMETER_KEYS.schedulerRoleArn), { mutable: false }),
    );
  }

  queue(name: QueueName): QueuePair {
    return this.#once(`queue:${name}`, () => {
      const spec: QueueSpec = QUEUES[name];
      const names = queueNames(this.#stage, name, spec.fifo);
      const imported = (id: string, queueName: string) =>
        Queue.fromQueueAttributes(this.#scope, id, {
          queueArn: this.#scope.formatArn({
            service: 'sqs',
            resource: queueName,
            arnFormat: ArnFormat.NO_RESOURCE_NAME,
          }),
          queueName,
          queueUrl: `https://sqs.${this.#scope.region}.${this.#scope.urlSuffix}/${this.#scope.account}/${queueName}`,
          fifo: spec.fifo,
        });
      return {
        queue: imported(`${pascalCase(name)}Queue`, names.queue),
        deadLetterQueue: imported(`${pascalCase(name)}Dlq`, names.dlq),
      };
    });
  }

  api(host: Host): IHttpApi {
    return this.#once(`api:${host}`, () =>
      HttpApi.fromHttpApiAttributes(this.#scope, `${pascalCase(host)}Api`, {
        httpApiId: this.#read(PARAMETER_KEYS.apiId(host)),
      }),
    );
  }

  publicUrl(host: Host): string {
    return this.#read(PARAMETER_KEYS.publicUrl(host));
  }

  get publicUrls(): Readonly<Record<Host, string>> {
    return Object.fromEntries(HOSTS.map((host) => [host, this.publicUrl(host)])) as Record<Host, string>;
  }

  /** A catalog function's CloudWatch metrics, by its name (the alarms need no more of it). */
  functionMetrics(name: string): FunctionMetrics {
    const metric = (metricName: string) => (props?: MetricOptions) =>
      new Metric({
        namespace: 'AWS/Lambda',
        metricName,
        dimensionsMap: { FunctionName: functionName(this.#stage, name) },
        statistic: 'Sum',
        ...props,
      });
    return {
      metricErrors: metric('Errors'),
      metricThrottles: metric('Throttles'),
      metricInvocations: metric('Invocations'),
    };
  }
}
