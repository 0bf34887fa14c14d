import { Duration, RemovalPolicy, type Stack } from 'aws-cdk-lib';
import { type HttpApi, HttpMethod, PayloadFormatVersion } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { FUNCTIONS, type FunctionSpec, type QueueFunction, type Uses } from '#shared/catalog/functions.ts';
import type { Host } from '#shared/catalog/hosts.ts';
import { QUEUES, type QueueName } from '#shared/catalog/queues.ts';
import type { Stage } from '#shared/catalog/stage.ts';
import { pascalCase } from './names.ts';
import { queueOf } from './queues.ts';
import { type MailBinding, type SchedulerBinding, ServiceFunction } from './service-function.ts';

/*
 * Construct builders add their resources to the stack given as `scope`, with the ids they always had: a resource's
 * logical id derives from its construct path, and a changed id would make CloudFormation replace a deployed queue (and
 * lose its messages) or a deployed API (and change its URL).
 */

/** FIFO queues cap a batch at 10 records (an SQS limit on ReceiveMessage for FIFO event sources). */
const FIFO_MAX_BATCH = 10;

/** Catalog mistakes that AWS would only reject at deploy time (or never, silently redelivering) fail the synth. */
const assertConsumerFits = (spec: QueueFunction): void => {
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
};

export interface CatalogFunctionsProps {
  readonly stage: Stage;
  readonly apis: Readonly<Record<Host, HttpApi>>;
  readonly queues: ReadonlyMap<QueueName, Queue>;
  readonly publicUrls: Readonly<Record<Host, string>>;
  readonly timers: SchedulerBinding;
  readonly mail: MailBinding;
  readonly table: TableV2;
  readonly importsBucket: Bucket;
  readonly masterKey: Secret;
}

/** One Lambda per catalog function, with the routes, event source, grants and environment its entry declares. */
export const catalogFunctions = (scope: Stack, props: CatalogFunctionsProps): Map<string, ServiceFunction> => {
  const { stage, apis, queues, publicUrls, timers, mail } = props;
  const functions = new Map<string, ServiceFunction>();
  for (const spec of FUNCTIONS as readonly FunctionSpec[]) {
    const fn = new ServiceFunction(scope, pascalCase(spec.name), {
      name: spec.name,
      entry: spec.entry,
      stage,
      timeout: Duration.seconds(spec.timeoutSeconds),
      memorySize: spec.memoryMb,
      logRemovalPolicy: stage === 'dev' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    });

    // Grants come from `uses` only: a function that does not declare a resource gets neither access nor its name.
    if (spec.uses.table) fn.useTable(props.table, spec.uses.table);
    for (const target of spec.uses.sendTo ?? []) fn.sendTo(queueOf(queues, target), QUEUES[target].urlEnv);
    if (spec.uses.masterKey) fn.readSecret(props.masterKey);
    if ((spec.uses as Uses).scheduler) fn.useScheduler(timers);
    if (spec.uses.importsBucket) fn.useImportsBucket(props.importsBucket, spec.uses.importsBucket);
    if (spec.uses.mailer) fn.useMailer(mail);
    if (spec.uses.sesIdentities) fn.useSesIdentities();
    // The API's endpoint depends on the API alone (not on its routes), so a function routed on the host it names
    // creates no dependency cycle.
    if (spec.uses.publicMainUrl) fn.usePublicMainUrl(publicUrls.main);
    if (spec.uses.publicUrls) {
      fn.usePublicUrls(publicUrls);
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
      assertConsumerFits(spec);
      fn.lambda.addEventSource(
        new SqsEventSource(queueOf(queues, spec.queue), {
          batchSize: spec.batchSize,
          // Handlers answer with the failed message ids, so one bad record does not send the whole batch back.
          reportBatchItemFailures: true,
        }),
      );
      // A consumer may hold a message back (ChangeMessageVisibility, granted by the event source): it needs the URL.
      fn.lambda.addEnvironment(QUEUES[spec.queue].urlEnv, queueOf(queues, spec.queue).queueUrl);
    }
    functions.set(spec.name, fn);
  }

  return functions;
};
