/**
 * The synthesized stacks of a stage (infra/app.ts): what each holds, the room each has, how they reference each other,
 * and the least privilege of every function. docs/deploy.md describes the layout; docs/capacity.md the sizing.
 */
import { App, Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { buildApp } from '#infra/app.ts';
import {
  assertConsumerFits,
  RESERVED_CONCURRENCY,
  VISIBILITY_TO_TIMEOUT,
} from '#infra/constructs/catalog-functions.ts';
import { pascalCase, queueNames } from '#infra/constructs/names.ts';
import { ServiceFunction } from '#infra/constructs/service-function.ts';
import { allStacks } from '#infra/deployment.ts';
import { TABLE_SCHEMA } from '#shared/adapters/dynamodb/table-schema.ts';
import { AREAS, type QueueFunction } from '#shared/catalog/function-spec.ts';
import { HOST_THROTTLE, HOSTS } from '#shared/catalog/hosts.ts';
import { QUEUES, type QueueName, type QueueSpec } from '#shared/catalog/queues.ts';
import { OPERATOR_SETTINGS, type OperatorSetting, type OperatorSettingName } from '#shared/catalog/settings.ts';
import { parseStage, STAGES } from '#shared/catalog/stage.ts';
import { ENV } from '#shared/config.ts';
import {
  actionsOf,
  catalog,
  envOf,
  functionOf,
  logicalId,
  parameterRef,
  queueArn,
  sendTargetsOf,
  statementsOf,
  synth,
} from './synth.ts';

const prod = synth('prod');
const dev = synth('dev');
const queueEntries = Object.entries(QUEUES) as [QueueName, QueueSpec][];

/** CloudFormation allows 500 resources per stack; each stack keeps this much room to grow. */
const STACK_RESOURCE_BUDGET = 300;

describe('the stacks of a stage', () => {
  it.each(STAGES)('keeps every stack of stage %s under 300 resources', (stage) => {
    const counts = synth(stage).all.map(({ stack, template }) => ({
      stack: stack.stackName,
      resources: Object.keys(template.toJSON().Resources ?? {}).length,
    }));
    for (const { stack, resources } of counts) {
      expect(resources, `${stack} holds ${resources} resources`).toBeLessThan(STACK_RESOURCE_BUDGET);
    }
    // Every function is somewhere: the split lost nothing.
    const lambdas = synth(stage).all.reduce(
      (sum, { template }) => sum + Object.keys(template.findResources('AWS::Lambda::Function')).length,
      0,
    );
    expect(lambdas).toBeGreaterThanOrEqual(catalog.length);
  });

  it('names the stacks after the stage and the catalog areas, in deploy order', () => {
    expect(allStacks(prod.stacks).map((s) => s.stackName)).toEqual([
      'Storeflow-prod-Stateful',
      'Storeflow-prod-Edge',
      ...AREAS.map((area) => `Storeflow-prod-${pascalCase(area)}`),
      'Storeflow-prod-Ops',
    ]);
  });

  it('references other stacks weakly: no export, no import, and the deploy order declared', () => {
    for (const { stack, template } of prod.all) {
      const json = JSON.stringify(template.toJSON());
      expect(json, stack.stackName).not.toContain('Fn::ImportValue');
      const outputs = (template.toJSON().Outputs ?? {}) as Record<string, { Export?: unknown }>;
      expect(
        Object.entries(outputs).filter(([, o]) => o.Export !== undefined),
        stack.stackName,
      ).toEqual([]);
    }
    for (const area of Object.values(prod.stacks.areas)) {
      expect(area.dependencies.map((d) => d.stackName).sort()).toEqual(
        ['Storeflow-prod-Edge', 'Storeflow-prod-Stateful'].sort(),
      );
    }
    expect(prod.stacks.ops.dependencies.map((d) => d.stackName).sort()).toEqual(
      allStacks(prod.stacks)
        .filter((s) => s !== prod.stacks.ops)
        .map((s) => s.stackName)
        .sort(),
    );
  });

  it('keeps everything that holds pending work in the stateful stack, and only there', () => {
    const pending = ['AWS::SQS::Queue', 'AWS::Scheduler::ScheduleGroup', 'AWS::SES::ConfigurationSet'];
    for (const { stack, template } of prod.all) {
      for (const type of pending) {
        const count = Object.keys(template.findResources(type)).length;
        if (stack === prod.stacks.stateful) expect(count, `${type} in ${stack.stackName}`).toBeGreaterThan(0);
        else expect(count, `${type} in ${stack.stackName}`).toBe(0);
      }
    }
    prod.stateful.resourceCountIs('AWS::SQS::Queue', 2 * queueEntries.length);
    prod.stateful.hasResourceProperties('AWS::Scheduler::ScheduleGroup', { Name: 'storeflow-prod-timers' });
    dev.stateful.hasResourceProperties('AWS::Scheduler::ScheduleGroup', { Name: 'storeflow-dev-timers' });
    expect(prod.stacks.stateful.terminationProtection).toBe(true);
    expect(dev.stacks.stateful.terminationProtection).toBe(false);
  });

  it('publishes what AWS names (table, bucket, secret, Scheduler role, API ids and URLs) as SSM parameters', () => {
    for (const key of ['table-name', 'imports-bucket-name', 'master-key-secret-arn', 'scheduler-role-arn']) {
      prod.stateful.hasResourceProperties('AWS::SSM::Parameter', { Name: `/storeflow/prod/${key}`, Type: 'String' });
    }
    for (const host of HOSTS) {
      prod.edge.hasResourceProperties('AWS::SSM::Parameter', { Name: `/storeflow/prod/api-id/${host}` });
      prod.edge.hasResourceProperties('AWS::SSM::Parameter', { Name: `/storeflow/prod/public-url/${host}` });
    }
  });
});

describe('functions', () => {
  it('has one Lambda per catalog function in its area’s stack, on Node 24 and arm64, named, sized as the catalog says', () => {
    for (const area of AREAS) {
      prod.areas[area].resourceCountIs('AWS::Lambda::Function', catalog.filter((f) => f.area === area).length);
    }
    for (const spec of catalog) {
      const { template, lambdaId } = functionOf(prod, spec.name);
      expect(template.findResources('AWS::Lambda::Function')[lambdaId], spec.name).toMatchObject({
        Properties: {
          FunctionName: `storeflow-prod-${spec.name}`,
          Runtime: 'nodejs24.x',
          Architectures: ['arm64'],
          Timeout: spec.timeoutSeconds,
          MemorySize: spec.memoryMb,
          Environment: {
            Variables: {
              NODE_OPTIONS: '--enable-source-maps',
              POWERTOOLS_SERVICE_NAME: 'storeflow',
              POWERTOOLS_LOG_LEVEL: 'INFO',
              [ENV.stage]: 'prod',
            },
          },
        },
      });
    }
  });

  it('gives every function a log group with one month of retention', () => {
    for (const area of AREAS) {
      prod.areas[area].resourceCountIs('AWS::Logs::LogGroup', catalog.filter((f) => f.area === area).length);
      prod.areas[area].allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
      prod.areas[area].allResourcesProperties('AWS::Lambda::Function', {
        LoggingConfig: { LogGroup: { Ref: Match.anyValue() } },
      });
    }
  });
});

describe('concurrency fences', () => {
  const reservedOf = (name: string) => {
    const { template, lambdaId } = functionOf(prod, name);
    const fn = template.findResources('AWS::Lambda::Function')[lambdaId] as {
      Properties: { ReservedConcurrentExecutions?: number };
    };
    return fn.Properties.ReservedConcurrentExecutions;
  };

  it('reserves concurrency for the event edge and the ingest worker, and caps the synchronous backtest', () => {
    for (const name of ['events-ingest', 'headless-events', 'ingest-worker', 'flow-backtest']) {
      expect(reservedOf(name), name).toBe(RESERVED_CONCURRENCY[name]);
      expect(reservedOf(name), name).toBeGreaterThan(0);
    }
    // Nothing else is fenced: a reservation is taken from every other function's share.
    for (const spec of catalog.filter((f) => !(f.name in RESERVED_CONCURRENCY))) {
      expect(reservedOf(spec.name), spec.name).toBeUndefined();
    }
  });

  it('reserves what the ingest mapping may start, and leaves the account its unreserved 100 of 1,000', () => {
    const worker = catalog.find((f) => f.name === 'ingest-worker') as QueueFunction;
    expect(RESERVED_CONCURRENCY['ingest-worker']).toBe(worker.maxConcurrency);
    const total = Object.values(RESERVED_CONCURRENCY).reduce((sum, n) => sum + n, 0);
    expect(total).toBeLessThanOrEqual(1000 - 100);
  });
});

describe('hosts', () => {
  it('creates one HTTP API per host, throttled at the stage as the catalog says', () => {
    prod.edge.resourceCountIs('AWS::ApiGatewayV2::Api', HOSTS.length);
    for (const host of HOSTS) {
      const apiId = logicalId(prod.stacks.edge, prod.stacks.edge.apis[host]);
      prod.edge.hasResourceProperties('AWS::ApiGatewayV2::Api', {
        Name: `storeflow-prod-${host}`,
        ProtocolType: 'HTTP',
      });
      prod.edge.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
        ApiId: { Ref: apiId },
        StageName: '$default',
        AutoDeploy: true,
        DefaultRouteSettings: {
          ThrottlingRateLimit: HOST_THROTTLE[host].ratePerSecond,
          ThrottlingBurstLimit: HOST_THROTTLE[host].burst,
        },
      });
    }
  });

  it('routes every catalog route on its host to its function with payload format 2.0, from the function’s stack', () => {
    for (const spec of catalog) {
      if (spec.kind !== 'http') continue;
      const { template, lambdaId } = functionOf(prod, spec.name);
      const integrations = template.findResources('AWS::ApiGatewayV2::Integration');
      for (const r of spec.routes) {
        const apiId = parameterRef(template, 'prod', `api-id/${r.host}`);
        const found = template.findResources('AWS::ApiGatewayV2::Route', {
          Properties: { RouteKey: `${r.method} ${r.path}`, ApiId: apiId },
        });
        const route = Object.values(found)[0] as { Properties: { Target: { 'Fn::Join': [string, unknown[]] } } };
        expect(route, `${r.method} ${r.path} on ${r.host}`).toBeDefined();
        const target = route.Properties.Target['Fn::Join'][1][1] as { Ref: string };
        expect(integrations[target.Ref]).toMatchObject({
          Properties: {
            ApiId: apiId,
            IntegrationType: 'AWS_PROXY',
            PayloadFormatVersion: '2.0',
            IntegrationUri: { 'Fn::GetAtt': [lambdaId, 'Arn'] },
          },
        });
      }
    }
    const routes = catalog.flatMap((spec) => (spec.kind === 'http' ? spec.routes : []));
    const synthesized = AREAS.reduce(
      (sum, area) => sum + Object.keys(prod.areas[area].findResources('AWS::ApiGatewayV2::Route')).length,
      0,
    );
    expect(synthesized).toBe(routes.length);
  });

  it('outputs the host URLs from the edge stack and what the admin command needs from the stateful one', () => {
    for (const host of HOSTS) prod.edge.hasOutput(`${pascalCase(host)}Url`, {});
    for (const output of ['TableName', 'ImportsBucketName', 'MasterKeySecretArn']) prod.stateful.hasOutput(output, {});
  });
});

describe('queues', () => {
  it.each(queueEntries)('creates queue %s with its DLQ, both named, and the catalog redrive count', (name, spec) => {
    const queue = prod.stacks.stateful.queues.get(name);
    if (!queue) throw new Error(`no queue ${name}`);
    const id = logicalId(prod.stacks.stateful, queue);
    const names = queueNames('prod', name, spec.fifo);
    const resource = prod.stateful.findResources('AWS::SQS::Queue')[id] as {
      Properties: { RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [string, string] } } };
    };
    expect(resource).toMatchObject({
      Properties: {
        QueueName: names.queue,
        ...(spec.fifo ? { FifoQueue: true, ContentBasedDeduplication: false } : {}),
        VisibilityTimeout: spec.visibilityTimeoutSeconds,
        SqsManagedSseEnabled: true,
        RedrivePolicy: { maxReceiveCount: spec.maxReceiveCount },
      },
    });
    const dlqId = resource.Properties.RedrivePolicy.deadLetterTargetArn['Fn::GetAtt'][0];
    expect(dlqId).not.toBe(id);
    expect(prod.stateful.findResources('AWS::SQS::Queue')[dlqId]).toMatchObject({
      Properties: {
        QueueName: names.dlq,
        ...(spec.fifo ? { FifoQueue: true } : {}),
        MessageRetentionPeriod: 14 * 24 * 3600,
        SqsManagedSseEnabled: true,
      },
    });
    for (const queueRef of [id, dlqId]) {
      prod.stateful.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: queueRef }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    }
  });

  it('makes the ingest queue FIFO in high-throughput mode (deduplication and throughput per message group)', () => {
    expect(QUEUES.ingest.fifo).toBe(true);
    prod.stateful.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: 'storeflow-prod-ingest.fifo',
      FifoQueue: true,
      DeduplicationScope: 'messageGroup',
      FifoThroughputLimit: 'perMessageGroupId',
      RedrivePolicy: { maxReceiveCount: QUEUES.ingest.maxReceiveCount },
    });
  });

  it('feeds every queue function from its queue with partial batch responses and a maximum concurrency', () => {
    for (const spec of catalog) {
      if (spec.kind !== 'queue') continue;
      const { template, lambdaId } = functionOf(prod, spec.name);
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        FunctionName: { Ref: lambdaId },
        EventSourceArn: queueArn('prod', spec.queue),
        BatchSize: spec.batchSize,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ScalingConfig: { MaximumConcurrency: spec.maxConcurrency },
        ...(spec.batchingWindowSeconds ? { MaximumBatchingWindowInSeconds: spec.batchingWindowSeconds } : {}),
      });
    }
    // The SES events worker gathers up to 100 events for 2 s, so its per-batch counter writes cover more of them.
    const emailEvents = catalog.find((spec) => spec.name === 'email-events-worker');
    expect(emailEvents).toMatchObject({ batchSize: 100, batchingWindowSeconds: 2 });
    const mappings = AREAS.flatMap((area) =>
      Object.values(prod.areas[area].findResources('AWS::Lambda::EventSourceMapping')),
    ) as { Properties: { ScalingConfig?: { MaximumConcurrency?: number } } }[];
    expect(mappings).toHaveLength(catalog.filter((spec) => spec.kind === 'queue').length);
    for (const mapping of mappings) expect(mapping.Properties.ScalingConfig?.MaximumConcurrency).toBeGreaterThan(1);
  });

  it('sets every queue’s visibility timeout to at least six times its consumer’s timeout', () => {
    for (const spec of catalog) {
      if (spec.kind !== 'queue') continue;
      expect(QUEUES[spec.queue].visibilityTimeoutSeconds, spec.name).toBeGreaterThanOrEqual(
        VISIBILITY_TO_TIMEOUT * spec.timeoutSeconds,
      );
    }
    const consumer = catalog.find((spec): spec is QueueFunction => spec.kind === 'queue' && spec.queue === 'flows');
    if (!consumer) throw new Error('no flows consumer');
    // The synth refuses a catalog that breaks the rule, or sets a concurrency Lambda would refuse.
    expect(() => assertConsumerFits({ ...consumer, timeoutSeconds: 61 })).toThrow(/under 6x/);
    expect(() => assertConsumerFits({ ...consumer, maxConcurrency: 1 })).toThrow(/maxConcurrency 1/);
    expect(() => assertConsumerFits(consumer)).not.toThrow();
  });
});

describe.each(catalog.map((spec) => [spec.name, spec] as const))('least privilege: %s', (name, spec) => {
  const actions = actionsOf(prod, name);
  const env = envOf(prod, name);

  it('touches the table only as declared, never scans, and writes only rate counters when that is all it may', () => {
    expect(actions).not.toContain('dynamodb:Scan');
    expect(actions.includes('dynamodb:GetItem')).toBe(spec.uses.table !== undefined);
    expect(actions.includes('dynamodb:PutItem')).toBe(spec.uses.table === 'readWrite');
    expect(actions.includes('dynamodb:DeleteItem')).toBe(spec.uses.table === 'readWrite');
    expect(ENV.tableName in env).toBe(spec.uses.table !== undefined);
    const writes = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];
    const statements = statementsOf(prod, name).filter((st) => [st.Action].flat().some((a) => writes.includes(a)));
    if (spec.uses.table === 'readWrite') return;
    // Anything but readWrite: the only write is UpdateItem on rate-counter keys, and only when declared.
    expect(statements).toEqual(
      spec.uses.rateCounters
        ? [
            expect.objectContaining({
              Action: 'dynamodb:UpdateItem',
              Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['RATE#*'] } },
            }),
          ]
        : [],
    );
  });

  it('sends only to the queues it declares, and knows the URL of those and of the queue it consumes', () => {
    const sendTo: readonly QueueName[] = spec.uses.sendTo ?? [];
    expect(actions.includes('sqs:SendMessage')).toBe(sendTo.length > 0);
    expect(sendTargetsOf(prod, name).sort()).toEqual(sendTo.map((queue) => queueArn('prod', queue)).sort());
    for (const [queue, queueSpec] of queueEntries) {
      const consumes = spec.kind === 'queue' && spec.queue === queue;
      expect(queueSpec.urlEnv in env, queue).toBe(sendTo.includes(queue) || consumes);
    }
  });

  it('reads the master key only when declared', () => {
    expect(actions.includes('secretsmanager:GetSecretValue')).toBe(spec.uses.masterKey === true);
    expect(ENV.masterKeySecretId in env).toBe(spec.uses.masterKey === true);
  });

  it('writes schedules and passes the Scheduler role only when declared', () => {
    const declared = spec.uses.scheduler === true;
    expect(actions.includes('scheduler:CreateSchedule')).toBe(declared);
    expect(actions.includes('scheduler:UpdateSchedule')).toBe(declared);
    expect(actions.includes('iam:PassRole')).toBe(declared);
    expect(actions.some((action) => action.startsWith('scheduler:Delete'))).toBe(false);
    for (const variable of [ENV.scheduleGroup, ENV.schedulerRoleArn, ENV.timersQueueArn, ENV.timersDlqArn]) {
      expect(variable in env, variable).toBe(declared);
    }
    if (declared) {
      expect(env[ENV.scheduleGroup]).toBe('storeflow-prod-timers');
      expect(env[ENV.timersQueueArn]).toEqual(queueArn('prod', 'timers'));
      expect(env[ENV.timersDlqArn]).toEqual(queueArn('prod', 'timers', 'dlq'));
    }
  });

  it('sends mail, manages SES identities and knows the public URLs only when declared', () => {
    const { mailer, sesIdentities, publicMainUrl, publicUrls } = spec.uses;
    const expected = [
      ...(mailer ? ['SendBulkEmail', 'SendEmail'] : []),
      ...(sesIdentities ? ['CreateEmailIdentity', 'DeleteEmailIdentity', 'GetEmailIdentity', 'TagResource'] : []),
    ].map((action) => `ses:${action}`);
    expect(actions.filter((action) => action.startsWith('ses:')).sort()).toEqual(expected.sort());
    expect(ENV.sesConfigurationSet in env).toBe(mailer === true);
    expect(ENV.publicSendingUrl in env).toBe(mailer === true || publicUrls === true);
    expect(ENV.publicMainUrl in env).toBe(publicMainUrl === true || publicUrls === true);
  });
});

describe('rate-limited routes', () => {
  it('each may write its rate counters: it declares table readWrite, or rateCounters', async () => {
    const undeclared: string[] = [];
    const limited: string[] = [];
    for (const spec of catalog) {
      if (spec.kind !== 'http') continue;
      // httpRoute marks its handlers (`rateLimited`); the few handlers written without it are not rate limited.
      const module = (await import(/* @vite-ignore */ `../../${spec.entry}`)) as { handler: { rateLimited?: boolean } };
      if (module.handler.rateLimited !== true) continue;
      limited.push(spec.name);
      if (spec.uses.table !== 'readWrite' && spec.uses.rateCounters !== true) undeclared.push(spec.name);
    }
    expect(undeclared).toEqual([]);
    // The mark is read (a handler that lost it would pass the check above vacuously).
    expect(limited).toEqual(expect.arrayContaining(['webhooks-list', 'flows-get', 'sending-get', 'contacts-export']));
  });
});

describe('operator settings', () => {
  const settings = Object.entries(OPERATOR_SETTINGS) as [OperatorSettingName, OperatorSetting][];

  it('sets each setting, at its default, on exactly the functions that read it', () => {
    for (const [name, setting] of settings) {
      const readers = catalog.filter((spec) => setting.readBy(spec)).map((spec) => spec.name);
      expect(readers.length, name).toBeGreaterThan(0);
      for (const spec of catalog) {
        expect(envOf(prod, spec.name)[setting.env], `${name} on ${spec.name}`).toBe(
          readers.includes(spec.name) ? String(setting.default) : undefined,
        );
      }
    }
    expect(envOf(prod, 'send-worker')[ENV.sesSendRatePerSecond]).toBe('14');
    expect(envOf(prod, 'flow-worker')[ENV.storeDailySendCap]).toBe('100000');
    expect(envOf(prod, 'flow-worker')[ENV.storeFlowRunsPerSecond]).toBe('50');
  });

  it('takes a value from -c, and refuses one out of bounds naming the setting', () => {
    const tuned = synth('prod', { sesSendRatePerSecond: '50', checkoutRecoveryWaitMinutes: '45' });
    expect(envOf(tuned, 'send-worker')[ENV.sesSendRatePerSecond]).toBe('50');
    expect(envOf(tuned, 'sending-create')[ENV.sesSendRatePerSecond]).toBe('50');
    expect(envOf(tuned, 'ingest-worker')[ENV.checkoutRecoveryWaitMinutes]).toBe('45');
    expect(() => synth('prod', { sesSendRatePerSecond: 'fast' })).toThrow(
      /-c sesSendRatePerSecond=fast: must be a whole number from 1 to 10000/,
    );
    expect(() => synth('prod', { checkoutRecoveryWaitMinutes: '5' })).toThrow(/checkoutRecoveryWaitMinutes=5/);
  });
});

describe('timers', () => {
  it('lets Scheduler send to the timers queue and, after its retries, to that queue’s DLQ, nothing else', () => {
    const roles = prod.stateful.findResources('AWS::IAM::Role', {
      Properties: {
        AssumeRolePolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Principal: { Service: 'scheduler.amazonaws.com' }, Action: 'sts:AssumeRole' }),
          ]),
        },
      },
    });
    const [roleId] = Object.keys(roles);
    expect(Object.keys(roles)).toHaveLength(1);
    const target = queueEntries.find(([, queue]) => queue.schedulerTarget)?.[0];
    const queue = target ? prod.stacks.stateful.queues.get(target) : undefined;
    const dlq = queue?.deadLetterQueue?.queue;
    if (!roleId || !queue || !dlq) throw new Error('no Scheduler role or target queue');
    const policies = prod.stateful.findResources('AWS::IAM::Policy', {
      Properties: { Roles: Match.arrayWith([{ Ref: roleId }]) },
    });
    const statements = Object.values(policies).flatMap(
      (p) =>
        (p as { Properties: { PolicyDocument: { Statement: { Action: string | string[]; Resource: unknown }[] } } })
          .Properties.PolicyDocument.Statement,
    );
    for (const st of statements) {
      expect([st.Action].flat().sort()).toEqual(['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage']);
    }
    expect(statements.map((st) => st.Resource)).toEqual([
      { 'Fn::GetAtt': [logicalId(prod.stacks.stateful, queue), 'Arn'] },
      { 'Fn::GetAtt': [logicalId(prod.stacks.stateful, dlq), 'Arn'] },
    ]);
  });

  it('lets the timer worker send to the flows, segments and campaigns queues only and keeps the ingest API from the master key', () => {
    // Flow waits end on the timers queue and are handed to the flows queue, segment re-evaluations to the segments
    // queue, due campaigns to the campaigns queue; nothing else is sent from there.
    expect(sendTargetsOf(prod, 'timer-worker')).toEqual(
      expect.arrayContaining([queueArn('prod', 'flows'), queueArn('prod', 'segments'), queueArn('prod', 'campaigns')]),
    );
    expect(sendTargetsOf(prod, 'timer-worker')).toHaveLength(3);
    expect(actionsOf(prod, 'timer-worker')).toContain('sqs:ReceiveMessage');
    expect(actionsOf(prod, 'webhook-delivery-worker')).toContain('sqs:ChangeMessageVisibility');
    expect(actionsOf(prod, 'webhook-delivery-worker')).toContain('secretsmanager:GetSecretValue');
    expect(actionsOf(prod, 'events-ingest')).toContain('sqs:SendMessage');
    expect(actionsOf(prod, 'events-ingest')).not.toContain('secretsmanager:GetSecretValue');
  });
});

describe('email events', () => {
  const EVENTS = ['delivery', 'bounce', 'complaint', 'open', 'click', 'subscription', 'reject', 'renderingFailure'];
  const idOf = (template: Template, type: string): string => {
    // The SES events topic is named so (the alarm topic lives in the ops stack).
    const only =
      type === 'AWS::SNS::Topic' ? { Properties: { DisplayName: Match.stringLikeRegexp('SES events') } } : {};
    const [id, ...more] = Object.keys(template.findResources(type, only));
    if (!id || more.length > 0) throw new Error(`expected exactly one ${type}`);
    return id;
  };

  it('has a configuration set per stage, suppressing bounces account-wide and complaints per store only', () => {
    prod.stateful.resourceCountIs('AWS::SES::ConfigurationSet', 1);
    prod.stateful.hasResourceProperties('AWS::SES::ConfigurationSet', {
      Name: 'storeflow-prod-mail',
      SuppressionOptions: { SuppressedReasons: ['BOUNCE'] },
    });
    dev.stateful.hasResourceProperties('AWS::SES::ConfigurationSet', { Name: 'storeflow-dev-mail' });
    prod.stateful.hasOutput('SesConfigurationSetName', {});
  });

  it('publishes delivery, bounce, complaint, open, click, subscription, reject and rendering events to one topic', () => {
    const topic = idOf(prod.stateful, 'AWS::SNS::Topic');
    prod.stateful.resourceCountIs('AWS::SES::ConfigurationSetEventDestination', 1);
    const [destination] = Object.values(prod.stateful.findResources('AWS::SES::ConfigurationSetEventDestination')) as {
      Properties: { ConfigurationSetName: unknown; EventDestination: Record<string, unknown> };
    }[];
    expect(destination?.Properties.ConfigurationSetName).toEqual({
      Ref: idOf(prod.stateful, 'AWS::SES::ConfigurationSet'),
    });
    expect(destination?.Properties.EventDestination).toMatchObject({
      Enabled: true,
      SnsDestination: { TopicARN: { Ref: topic } },
    });
    expect([...((destination?.Properties.EventDestination.MatchingEventTypes as string[]) ?? [])].sort()).toEqual(
      [...EVENTS].sort(),
    );
  });

  it('lets only SES, for this configuration set and account, publish to the topic, over TLS', () => {
    const topic = idOf(prod.stateful, 'AWS::SNS::Topic');
    prod.stateful.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: topic }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          Match.objectLike({
            Effect: 'Allow',
            Action: 'sns:Publish',
            Principal: { Service: 'ses.amazonaws.com' },
            Condition: {
              StringEquals: {
                'AWS:SourceAccount': { Ref: 'AWS::AccountId' },
                'AWS:SourceArn': Match.objectLike({
                  'Fn::Join': ['', Match.arrayWith([{ Ref: idOf(prod.stateful, 'AWS::SES::ConfigurationSet') }])],
                }),
              },
            },
          }),
        ]),
      },
    });
  });

  it('delivers the topic to the emailEvents queue in the SNS envelope, and only this topic may send there', () => {
    const topic = idOf(prod.stateful, 'AWS::SNS::Topic');
    const emailQueue = prod.stacks.stateful.queues.get('emailEvents');
    if (!emailQueue) throw new Error('no emailEvents queue');
    const queue = logicalId(prod.stacks.stateful, emailQueue);
    prod.stateful.resourceCountIs('AWS::SNS::Subscription', 1);
    prod.stateful.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'sqs',
      TopicArn: { Ref: topic },
      Endpoint: { 'Fn::GetAtt': [queue, 'Arn'] },
      RawMessageDelivery: false,
    });
    prod.stateful.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: queue }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Action: 'sqs:SendMessage',
            Principal: { Service: 'sns.amazonaws.com' },
            Condition: { ArnEquals: { 'aws:SourceArn': { Ref: topic } } },
          }),
        ]),
      },
    });
    const consumers = catalog.filter((spec) => spec.kind === 'queue' && spec.queue === 'emailEvents');
    expect(consumers.map((spec) => spec.name)).toEqual(['email-events-worker']);
  });

  it('scopes sending to the account’s identities and the stage’s configuration set, with the sending host’s URL', () => {
    const senders = catalog.filter((spec) => spec.uses.mailer);
    for (const spec of senders) {
      const env = envOf(prod, spec.name);
      expect(env[ENV.sesConfigurationSet]).toBe('storeflow-prod-mail');
      expect(env[ENV.publicSendingUrl]).toEqual(
        parameterRef(functionOf(prod, spec.name).template, 'prod', 'public-url/sending'),
      );
    }
    // The grant itself, on a function of its own (independent of which catalog entries send mail).
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'MailerProbe', { env: { account: '123456789012', region: 'eu-west-1' } });
    new ServiceFunction(stack, 'Probe', {
      name: 'probe',
      functionName: 'storeflow-test-probe',
      entry: 'functions/unsubscribe/handler.ts',
      stage: 'test',
      timeout: Duration.seconds(10),
      memorySize: 256,
    })
      .useMailer({ configurationSetName: 'storeflow-test', sendingUrl: 'https://sending.example' })
      .useSesIdentities();
    const identities = {
      'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':ses:eu-west-1:123456789012:identity/*']],
    };
    const statements = Object.values(Template.fromStack(stack).findResources('AWS::IAM::Policy')).flatMap(
      (p) =>
        (p as { Properties: { PolicyDocument: { Statement: { Action: unknown; Resource: unknown }[] } } }).Properties
          .PolicyDocument.Statement,
    );
    expect(statements).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          Action: ['ses:SendEmail', 'ses:SendBulkEmail'],
          Resource: [
            { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:ses:eu-west-1:123456789012:identity/*`]] },
            {
              'Fn::Join': [
                '',
                ['arn:', { Ref: 'AWS::Partition' }, ':ses:eu-west-1:123456789012:configuration-set/storeflow-test'],
              ],
            },
          ],
        }),
        expect.objectContaining({
          Action: 'ses:GetEmailIdentity',
          Resource: identities,
        }),
        // Created only with the stage's tag, deleted only when it carries it: never another stage's or the operator's.
        expect.objectContaining({
          Action: ['ses:CreateEmailIdentity', 'ses:TagResource'],
          Resource: identities,
          Condition: {
            StringEquals: { 'aws:RequestTag/storeflow:stage': 'test' },
            'ForAllValues:StringEquals': { 'aws:TagKeys': ['storeflow:stage'] },
          },
        }),
        expect.objectContaining({
          Action: 'ses:DeleteEmailIdentity',
          Resource: identities,
          Condition: { StringEquals: { 'aws:ResourceTag/storeflow:stage': 'test' } },
        }),
      ]),
    );
    const deletes = statements.filter((s) => [s.Action].flat().includes('ses:DeleteEmailIdentity'));
    expect(deletes).toHaveLength(1);
    // No SES action on every resource: listing identities is not needed (a store's domains are in the table).
    expect(statements.filter((s) => String(s.Action).startsWith('ses:') && s.Resource === '*')).toEqual([]);
  });

  it.each(prod.all.map(({ stack, template }) => [stack.stackName, template] as const))(
    'has no dependency cycle in %s',
    (_name, template) => {
      const resources = template.toJSON().Resources as Record<string, Record<string, unknown>>;
      const edges = new Map<string, Set<string>>();
      const collect = (value: unknown, into: Set<string>) => {
        if (Array.isArray(value)) for (const item of value) collect(item, into);
        else if (value && typeof value === 'object') {
          for (const [key, inner] of Object.entries(value)) {
            if (key === 'Ref' && typeof inner === 'string' && inner in resources) into.add(inner);
            else if (key === 'Fn::GetAtt' && Array.isArray(inner) && String(inner[0]) in resources)
              into.add(String(inner[0]));
            else collect(inner, into);
          }
        }
      };
      for (const [id, resource] of Object.entries(resources)) {
        const deps = new Set<string>();
        collect(resource.Properties, deps);
        for (const dep of [resource.DependsOn ?? []].flat()) deps.add(String(dep));
        edges.set(id, deps);
      }
      const state = new Map<string, 'visiting' | 'done'>();
      const cycleFrom = (id: string, path: string[]): string[] | undefined => {
        if (state.get(id) === 'done') return undefined;
        if (state.get(id) === 'visiting') return [...path, id];
        state.set(id, 'visiting');
        for (const dep of edges.get(id) ?? []) {
          const cycle = cycleFrom(dep, [...path, id]);
          if (cycle) return cycle;
        }
        state.set(id, 'done');
        return undefined;
      };
      for (const id of edges.keys()) expect(cycleFrom(id, [])).toBeUndefined();
    },
  );
});

describe('stateful stack', () => {
  it('has the single table with both GSIs, TTL and point-in-time recovery', () => {
    prod.stateful.resourceCountIs('AWS::DynamoDB::GlobalTable', 1);
    prod.stateful.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: TABLE_SCHEMA.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE_SCHEMA.sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: TABLE_SCHEMA.globalSecondaryIndexes.map((gsi) => ({
        IndexName: gsi.indexName,
        KeySchema: [
          { AttributeName: gsi.partitionKey, KeyType: 'HASH' },
          { AttributeName: gsi.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      Replicas: [
        Match.objectLike({
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          DeletionProtectionEnabled: true,
        }),
      ],
    });
    expect(TABLE_SCHEMA.globalSecondaryIndexes.map((g) => g.indexName)).toEqual(['gsi1', 'gsi2']);
  });

  it('retains data in prod', () => {
    for (const type of ['AWS::DynamoDB::GlobalTable', 'AWS::S3::Bucket', 'AWS::SecretsManager::Secret']) {
      prod.stateful.hasResource(type, { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    }
    prod.stateful.resourceCountIs('Custom::S3AutoDeleteObjects', 0);
  });

  it('lets dev data go with the stack', () => {
    for (const type of ['AWS::DynamoDB::GlobalTable', 'AWS::S3::Bucket', 'AWS::SecretsManager::Secret']) {
      dev.stateful.hasResource(type, { DeletionPolicy: 'Delete' });
    }
    dev.stateful.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      Replicas: [Match.objectLike({ DeletionProtectionEnabled: false })],
    });
    dev.stateful.resourceCountIs('Custom::S3AutoDeleteObjects', 1);
    for (const area of AREAS) dev.areas[area].allResources('AWS::Logs::LogGroup', { DeletionPolicy: 'Delete' });
  });

  it('keeps imports private, encrypted, TLS-only and for a week', () => {
    prod.stateful.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      LifecycleConfiguration: {
        Rules: Match.arrayWith([Match.objectLike({ ExpirationInDays: 7, Status: 'Enabled' })]),
      },
    });
    prod.stateful.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('generates a 64-character master key without punctuation', () => {
    prod.stateful.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true },
    });
  });
});

describe('stages', () => {
  it('names the stacks after the stage, so a test deployment lives beside prod', () => {
    const test = synth('test');
    expect(prod.stacks.stateful.stackName).toBe('Storeflow-prod-Stateful');
    expect(prod.stacks.edge.stackName).toBe('Storeflow-prod-Edge');
    expect(test.stacks.stateful.stackName).toBe('Storeflow-test-Stateful');
    expect(test.stacks.ops.stackName).toBe('Storeflow-test-Ops');
    test.edge.hasOutput('FrontUrl', { Description: Match.stringLikeRegexp('front_test_url') });
    test.stateful.hasResource('AWS::DynamoDB::GlobalTable', { DeletionPolicy: 'Retain' });
  });

  it('rejects an unknown stage', () => {
    expect(() => parseStage('staging')).toThrow(/Unknown stage "staging"/);
    expect(() => buildApp(new App(), undefined)).toThrow(/Unknown stage/);
    expect(parseStage('dev')).toBe('dev');
  });
});
