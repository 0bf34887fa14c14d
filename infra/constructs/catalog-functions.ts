import { Duration, RemovalPolicy, type Stack } from 'aws-cdk-lib';
import { HttpMethod, HttpRoute, HttpRouteKey, PayloadFormatVersion } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Area, FunctionSpec, QueueFunction } from '#shared/catalog/function-spec.ts';
import { FUNCTIONS } from '#shared/catalog/functions.ts';
import type { Host } from '#shared/catalog/hosts.ts';
import { QUEUES } from '#shared/catalog/queues.ts';
import { OPERATOR_SETTINGS, type OperatorSetting, type OperatorSettingName } from '#shared/catalog/settings.ts';
import type { Stage } from '#shared/catalog/stage.ts';
import { pascalCase } from './names.ts';
import { schedulerTargetQueue } from './queues.ts';
import { configurationSetName, functionName, type StageReferences } from './references.ts';
import { ServiceFunction } from './service-function.ts';

/** Operator settings given at deploy (context), by name. */
export type OperatorSettingValues = Readonly<Partial<Record<OperatorSettingName, number>>>;

/** FIFO queues cap a batch at 10 records (an SQS limit on ReceiveMessage for FIFO event sources). */
const FIFO_MAX_BATCH = 10;
/** AWS's rule for a queue feeding a Lambda: visibility timeout at least six times the function timeout. */
export const VISIBILITY_TO_TIMEOUT = 6;
/** Lambda's bounds on an SQS event source mapping's maximum concurrency. */
const MAX_CONCURRENCY_RANGE = [2, 1000] as const;

/** Catalog mistakes that AWS would only reject at deploy time (or never, silently redelivering) fail the synth. */
export const assertConsumerFits = (spec: QueueFunction): void => {
  const queue = QUEUES[spec.queue];
  if (queue.visibilityTimeoutSeconds < VISIBILITY_TO_TIMEOUT * spec.timeoutSeconds) {
    throw new Error(
      `Queue "${spec.queue}": visibility timeout ${queue.visibilityTimeoutSeconds}s is under ${VISIBILITY_TO_TIMEOUT}x ` +
        `consumer "${spec.name}"'s timeout ${spec.timeoutSeconds}s, so a retried invocation would count extra receives`,
    );
  }
  if (queue.fifo && spec.batchSize > FIFO_MAX_BATCH) {
    throw new Error(`Consumer "${spec.name}": batch size ${spec.batchSize} exceeds ${FIFO_MAX_BATCH} on FIFO queue`);
  }
  if (spec.batchSize > FIFO_MAX_BATCH && !spec.batchingWindowSeconds) {
    throw new Error(`Consumer "${spec.name}": a batch size over ${FIFO_MAX_BATCH} needs a batching window`);
  }
  const [low, high] = MAX_CONCURRENCY_RANGE;
  if (!Number.isInteger(spec.maxConcurrency) || spec.maxConcurrency < low || spec.maxConcurrency > high) {
    throw new Error(`Consumer "${spec.name}": maxConcurrency ${spec.maxConcurrency} is outside ${low}..${high}`);
  }
};

/**
 * Concurrency set aside per function (Lambda's reserved concurrency: both a floor no other function can take and a
 * ceiling), for the functions one store could otherwise use to starve the rest of the account (docs/capacity.md
 * "Concurrency fences"). Every stage gets the same numbers; they belong in the stage settings file once it exists.
 * - the event edge: at the main and front hosts' stage throttles (1,000 and 500 requests/s) and ~50 ms per request,
 *   ~50 and ~25 are busy; twice that is set aside so a flood elsewhere never takes the event path's concurrency;
 * - the ingest worker: its event source mapping's `maxConcurrency` (the synth checks they are equal), so its
 *   concurrency is there when the backlog needs it;
 * - the synchronous backtest (2 GB, up to 24 s): one per store at a time already (its slot), and at most this many
 *   across the stage, so a few stores cannot hold hundreds of executions (a call over it answers 429/503 at once).
 * The account keeps 100 unreserved; the sum here is checked against the account default of 1,000.
 */
export const RESERVED_CONCURRENCY: Readonly<Record<string, number>> = {
  'events-ingest': 100,
  'headless-events': 50,
  'ingest-worker': 20,
  'flow-backtest': 10,
};

/**
 * One Lambda per catalog function of `area`, with the routes, event source, grants and environment its entry
 * declares. Everything outside the stack (table, queues, APIs, timers) is reached through `refs`: weak references.
 */
export const catalogFunctions = (
  scope: Stack,
  stage: Stage,
  area: Area,
  refs: StageReferences,
  settings: OperatorSettingValues = {},
): Map<string, ServiceFunction> => {
  const functions = new Map<string, ServiceFunction>();
  for (const spec of FUNCTIONS.filter((f) => f.area === area) as FunctionSpec[]) {
    const fn = new ServiceFunction(scope, pascalCase(spec.name), {
      name: spec.name,
      functionName: functionName(stage, spec.name),
      entry: spec.entry,
      stage,
      timeout: Duration.seconds(spec.timeoutSeconds),
      memorySize: spec.memoryMb,
      logRemovalPolicy: stage === 'dev' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
      ...(spec.name in RESERVED_CONCURRENCY ? { reservedConcurrentExecutions: RESERVED_CONCURRENCY[spec.name] } : {}),
    });

    // Grants come from `uses` only: a function that does not declare a resource gets neither access nor its name.
    const { uses } = spec;
    if (uses.table) fn.useTable(refs.table, uses.table);
    if (uses.rateCounters && uses.table !== 'readWrite') fn.useRateCounters(refs.table);
    for (const target of uses.sendTo ?? []) fn.sendTo(refs.queue(target).queue, QUEUES[target].urlEnv);
    if (uses.masterKey) fn.readSecret(refs.masterKey);
    if (uses.scheduler) {
      const target = refs.queue(schedulerTargetQueue());
      fn.useScheduler({
        groupName: refs.scheduleGroupName,
        role: refs.schedulerRole,
        queueArn: target.queue.queueArn,
        deadLetterQueueArn: target.deadLetterQueue.queueArn,
      });
    }
    if (uses.importsBucket) fn.useImportsBucket(refs.importsBucket, uses.importsBucket);
    if (uses.exportPages) fn.useExportPages(refs.importsBucket);
    if (uses.mailer)
      fn.useMailer({ configurationSetName: configurationSetName(stage), sendingUrl: refs.publicUrl('sending') });
    if (uses.sesIdentities) fn.useSesIdentities();
    if (uses.publicMainUrl) fn.usePublicMainUrl(refs.publicUrl('main'));
    if (uses.publicUrls) fn.usePublicUrls(refs.publicUrls);
    // Every setting the function reads, with its effective value (the console shows what is in force).
    for (const [name, setting] of Object.entries(OPERATOR_SETTINGS) as [OperatorSettingName, OperatorSetting][]) {
      if (setting.readBy(spec)) fn.lambda.addEnvironment(setting.env, String(settings[name] ?? setting.default));
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
        const method = HttpMethod[route.method];
        new HttpRoute(fn, `${pascalCase(route.host)}${route.method}Route`, {
          httpApi: refs.api(route.host),
          routeKey: HttpRouteKey.with(route.path, method),
          integration,
        });
      }
    } else {
      assertConsumerFits(spec);
      const { queue } = refs.queue(spec.queue);
      fn.lambda.addEventSource(
        new SqsEventSource(queue, {
          batchSize: spec.batchSize,
          ...(spec.batchingWindowSeconds ? { maxBatchingWindow: Duration.seconds(spec.batchingWindowSeconds) } : {}),
          maxConcurrency: spec.maxConcurrency,
          // Handlers answer with the failed message ids, so one bad record does not send the whole batch back.
          reportBatchItemFailures: true,
        }),
      );
      // A consumer may hold a message back (ChangeMessageVisibility, granted by the event source): it needs the URL.
      fn.lambda.addEnvironment(QUEUES[spec.queue].urlEnv, queue.queueUrl);
    }
    functions.set(spec.name, fn);
  }
  return functions;
};
