import { App, type CfnResource, Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { buildApp, type StoreflowStacks } from '#infra/app.ts';
import { pascalCase } from '#infra/constructs/names.ts';
import { ServiceFunction } from '#infra/constructs/service-function.ts';
import { TABLE_SCHEMA } from '#shared/adapters/dynamodb/table-schema.ts';
import { FUNCTIONS, type FunctionSpec } from '#shared/catalog/functions.ts';
import { HOSTS } from '#shared/catalog/hosts.ts';
import { QUEUES, type QueueName, type QueueSpec } from '#shared/catalog/queues.ts';
import { parseStage } from '#shared/catalog/stage.ts';
import { ENV } from '#shared/config.ts';

interface Synthesized {
  readonly stacks: StoreflowStacks;
  readonly stateful: Template;
  readonly service: Template;
}

const synth = (stage: string): Synthesized => {
  // An empty bundling-stacks list is what `cdk ls` uses: NodejsFunction skips esbuild and the asset gets a placeholder
  // hash, so a synth takes a second instead of bundling every function.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stacks = buildApp(app, stage);
  return { stacks, stateful: Template.fromStack(stacks.stateful), service: Template.fromStack(stacks.service) };
};

const prod = synth('prod');
const dev = synth('dev');

const catalog = FUNCTIONS as readonly FunctionSpec[];
const queueEntries = Object.entries(QUEUES) as [QueueName, QueueSpec][];

const logicalId = (stack: Stack, construct: { node: { defaultChild?: unknown } }): string =>
  stack.getLogicalId(construct.node.defaultChild as CfnResource);

const lambdaOf = (s: Synthesized, name: string) => {
  const fn = s.stacks.service.functions.get(name);
  if (!fn) throw new Error(`no function ${name}`);
  return fn.lambda;
};
const lambdaId = (s: Synthesized, name: string): string => logicalId(s.stacks.service, lambdaOf(s, name));
const queueId = (s: Synthesized, name: QueueName): string => {
  const queue = s.stacks.service.queues.get(name);
  if (!queue) throw new Error(`no queue ${name}`);
  return logicalId(s.stacks.service, queue);
};

/** The resources of the statements granting `sqs:SendMessage` to a function's role. */
const sendTargetsOf = (s: Synthesized, name: string): unknown[] => {
  const role = lambdaOf(s, name).role;
  if (!role) throw new Error(`function ${name} has no role`);
  const roleId = logicalId(s.stacks.service, role);
  const policies = s.service.findResources('AWS::IAM::Policy', {
    Properties: { Roles: Match.arrayWith([{ Ref: roleId }]) },
  });
  return Object.values(policies)
    .flatMap(
      (p) =>
        (p as { Properties: { PolicyDocument: { Statement: { Action: string | string[]; Resource: unknown }[] } } })
          .Properties.PolicyDocument.Statement,
    )
    .filter((st) => (Array.isArray(st.Action) ? st.Action : [st.Action]).includes('sqs:SendMessage'))
    .map((st) => st.Resource);
};

/** Every IAM action granted to a function's role, from all policies attached to it. */
const actionsOf = (s: Synthesized, name: string): string[] => {
  const role = lambdaOf(s, name).role;
  if (!role) throw new Error(`function ${name} has no role`);
  const roleId = logicalId(s.stacks.service, role);
  const policies = s.service.findResources('AWS::IAM::Policy', {
    Properties: { Roles: Match.arrayWith([{ Ref: roleId }]) },
  });
  const statements = Object.values(policies).flatMap(
    (p) =>
      (p as { Properties: { PolicyDocument: { Statement: { Action: string | string[] }[] } } }).Properties
        .PolicyDocument.Statement,
  );
  return statements.flatMap((st) => (Array.isArray(st.Action) ? st.Action : [st.Action]));
};

const envOf = (s: Synthesized, name: string): Record<string, unknown> => {
  const resource = s.service.findResources('AWS::Lambda::Function')[lambdaId(s, name)] as {
    Properties: { Environment: { Variables: Record<string, unknown> } };
  };
  return resource.Properties.Environment.Variables;
};

describe('service stack', () => {
  it('has one Lambda per catalog function, on Node 24 and arm64, with the catalog timeout and memory', () => {
    prod.service.resourceCountIs('AWS::Lambda::Function', catalog.length);
    for (const spec of catalog) {
      const resource = prod.service.findResources('AWS::Lambda::Function')[lambdaId(prod, spec.name)];
      expect(resource, spec.name).toMatchObject({
        Properties: {
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
    // One per function, plus one per host for the API access logs.
    prod.service.resourceCountIs('AWS::Logs::LogGroup', catalog.length + HOSTS.length);
    prod.service.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
    prod.service.allResourcesProperties('AWS::Lambda::Function', {
      LoggingConfig: { LogGroup: { Ref: Match.anyValue() } },
    });
  });

  it('creates one HTTP API per host', () => {
    prod.service.resourceCountIs('AWS::ApiGatewayV2::Api', HOSTS.length);
    for (const host of HOSTS) {
      prod.service.hasResourceProperties('AWS::ApiGatewayV2::Api', {
        Name: `storeflow-prod-${host}`,
        ProtocolType: 'HTTP',
      });
    }
  });

  it('routes every catalog route on its host to its function with payload format 2.0', () => {
    const routes = catalog.flatMap((spec) => (spec.kind === 'http' ? spec.routes.map((r) => ({ spec, r })) : []));
    prod.service.resourceCountIs('AWS::ApiGatewayV2::Route', routes.length);
    const integrations = prod.service.findResources('AWS::ApiGatewayV2::Integration');
    for (const { spec, r } of routes) {
      const apiId = logicalId(prod.stacks.service, prod.stacks.service.apis[r.host]);
      const found = prod.service.findResources('AWS::ApiGatewayV2::Route', {
        Properties: { RouteKey: `${r.method} ${r.path}`, ApiId: { Ref: apiId } },
      });
      const route = Object.values(found)[0] as { Properties: { Target: { 'Fn::Join': [string, unknown[]] } } };
      expect(route, `${r.method} ${r.path} on ${r.host}`).toBeDefined();
      const target = route.Properties.Target['Fn::Join'][1][1] as { Ref: string };
      expect(integrations[target.Ref]).toMatchObject({
        Properties: {
          ApiId: { Ref: apiId },
          IntegrationType: 'AWS_PROXY',
          PayloadFormatVersion: '2.0',
          IntegrationUri: { 'Fn::GetAtt': [lambdaId(prod, spec.name), 'Arn'] },
        },
      });
    }
  });

  it.each(queueEntries)('creates queue %s with its DLQ and the catalog redrive count', (name, spec) => {
    const id = queueId(prod, name);
    const queue = prod.service.findResources('AWS::SQS::Queue')[id] as {
      Properties: { RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [string, string] } } };
    };
    expect(queue).toMatchObject({
      Properties: {
        ...(spec.fifo ? { FifoQueue: true, ContentBasedDeduplication: false } : {}),
        VisibilityTimeout: spec.visibilityTimeoutSeconds,
        SqsManagedSseEnabled: true,
        RedrivePolicy: { maxReceiveCount: spec.maxReceiveCount },
      },
    });
    const dlqId = queue.Properties.RedrivePolicy.deadLetterTargetArn['Fn::GetAtt'][0];
    expect(dlqId).not.toBe(id);
    expect(prod.service.findResources('AWS::SQS::Queue')[dlqId]).toMatchObject({
      Properties: {
        ...(spec.fifo ? { FifoQueue: true } : {}),
        MessageRetentionPeriod: 14 * 24 * 3600,
        SqsManagedSseEnabled: true,
      },
    });
    for (const queueRef of [id, dlqId]) {
      prod.service.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: queueRef }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    }
  });

  it('makes the ingest queue FIFO', () => {
    expect(QUEUES.ingest.fifo).toBe(true);
    prod.service.hasResourceProperties('AWS::SQS::Queue', {
      FifoQueue: true,
      RedrivePolicy: { maxReceiveCount: QUEUES.ingest.maxReceiveCount },
    });
  });

  it('feeds every queue function from its queue with partial batch responses', () => {
    const consumers = catalog.filter((spec) => spec.kind === 'queue');
    prod.service.resourceCountIs('AWS::Lambda::EventSourceMapping', consumers.length);
    for (const spec of consumers) {
      prod.service.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        FunctionName: { Ref: lambdaId(prod, spec.name) },
        EventSourceArn: { 'Fn::GetAtt': [queueId(prod, spec.queue), 'Arn'] },
        BatchSize: spec.batchSize,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
    }
  });

  describe.each(catalog.map((spec) => [spec.name, spec] as const))('least privilege: %s', (name, spec) => {
    const actions = actionsOf(prod, name);
    const env = envOf(prod, name);

    it('touches the table only as declared', () => {
      expect(actions.includes('dynamodb:GetItem')).toBe(spec.uses.table !== undefined);
      expect(actions.includes('dynamodb:PutItem')).toBe(spec.uses.table === 'readWrite');
      expect(ENV.tableName in env).toBe(spec.uses.table !== undefined);
    });

    it('sends only to the queues it declares, and knows the URL of those and of the queue it consumes', () => {
      const sendTo: readonly string[] = spec.uses.sendTo ?? [];
      expect(actions.includes('sqs:SendMessage')).toBe(sendTo.length > 0);
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
      const declared = (spec.uses as { scheduler?: boolean }).scheduler === true;
      expect(actions.includes('scheduler:CreateSchedule')).toBe(declared);
      expect(actions.includes('scheduler:UpdateSchedule')).toBe(declared);
      expect(actions.includes('iam:PassRole')).toBe(declared);
      expect(actions.some((action) => action.startsWith('scheduler:Delete'))).toBe(false);
      for (const variable of [ENV.scheduleGroup, ENV.schedulerRoleArn, ENV.timersQueueArn]) {
        expect(variable in env, variable).toBe(declared);
      }
    });

    it('sends mail, manages SES identities and knows the public URLs only when declared', () => {
      const { mailer, sesIdentities, publicMainUrl, publicUrls } = spec.uses;
      const expected = [
        ...(mailer ? ['SendBulkEmail', 'SendEmail'] : []),
        ...(sesIdentities ? ['CreateEmailIdentity', 'DeleteEmailIdentity', 'GetEmailIdentity'] : []),
      ].map((action) => `ses:${action}`);
      expect(actions.filter((action) => action.startsWith('ses:')).sort()).toEqual(expected.sort());
      expect(ENV.sesConfigurationSet in env).toBe(mailer === true);
      expect(ENV.publicSendingUrl in env).toBe(mailer === true || publicUrls === true);
      expect(ENV.publicMainUrl in env).toBe(publicMainUrl === true || publicUrls === true);
    });
  });

  it('gives the timers a schedule group per stage and a Scheduler role that may only send to the timers queue', () => {
    prod.service.hasResourceProperties('AWS::Scheduler::ScheduleGroup', { Name: 'storeflow-prod' });
    dev.service.hasResourceProperties('AWS::Scheduler::ScheduleGroup', { Name: 'storeflow-dev' });
    const roles = prod.service.findResources('AWS::IAM::Role', {
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
    if (!roleId || !target) throw new Error('no Scheduler role or target queue');
    const policies = prod.service.findResources('AWS::IAM::Policy', {
      Properties: { Roles: Match.arrayWith([{ Ref: roleId }]) },
    });
    const statements = Object.values(policies).flatMap(
      (p) =>
        (p as { Properties: { PolicyDocument: { Statement: { Action: string | string[]; Resource: unknown }[] } } })
          .Properties.PolicyDocument.Statement,
    );
    expect(statements.flatMap((st) => (Array.isArray(st.Action) ? st.Action : [st.Action])).sort()).toEqual([
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'sqs:SendMessage',
    ]);
    expect(statements.map((st) => st.Resource)).toEqual([{ 'Fn::GetAtt': [queueId(prod, target), 'Arn'] }]);
  });

  it('lets the timer worker send to the flows queue only and keeps the ingest API from the master key', () => {
    // Flow waits end on the timers queue and are handed to the flows queue; nothing else is sent from there.
    const timerSends = sendTargetsOf(prod, 'timer-worker');
    expect(timerSends).toEqual([{ 'Fn::GetAtt': [queueId(prod, 'flows'), 'Arn'] }]);
    expect(actionsOf(prod, 'timer-worker')).toContain('sqs:ReceiveMessage');
    expect(actionsOf(prod, 'webhook-delivery-worker')).toContain('sqs:ChangeMessageVisibility');
    expect(actionsOf(prod, 'webhook-delivery-worker')).toContain('secretsmanager:GetSecretValue');
    expect(actionsOf(prod, 'events-ingest')).toContain('sqs:SendMessage');
    expect(actionsOf(prod, 'events-ingest')).not.toContain('secretsmanager:GetSecretValue');
  });

  it('outputs the host URLs and what the admin command needs', () => {
    for (const host of HOSTS) prod.service.hasOutput(`${pascalCase(host)}Url`, {});
    for (const output of ['TableName', 'ImportsBucketName', 'MasterKeySecretArn']) prod.service.hasOutput(output, {});
  });
});

describe('email events', () => {
  const EVENTS = ['delivery', 'bounce', 'complaint', 'open', 'click', 'subscription', 'reject', 'renderingFailure'];
  const idOf = (template: Template, type: string): string => {
    // The service stack also has the alarm topic (infra/constructs/observability.ts): the SES events one is named so.
    const only =
      type === 'AWS::SNS::Topic' ? { Properties: { DisplayName: Match.stringLikeRegexp('SES events') } } : {};
    const [id, ...more] = Object.keys(template.findResources(type, only));
    if (!id || more.length > 0) throw new Error(`expected exactly one ${type}`);
    return id;
  };

  it('has a configuration set per stage, suppressing bounces account-wide and complaints per store only', () => {
    prod.service.resourceCountIs('AWS::SES::ConfigurationSet', 1);
    prod.service.hasResourceProperties('AWS::SES::ConfigurationSet', {
      Name: 'storeflow-prod',
      SuppressionOptions: { SuppressedReasons: ['BOUNCE'] },
    });
    dev.service.hasResourceProperties('AWS::SES::ConfigurationSet', { Name: 'storeflow-dev' });
    prod.service.hasOutput('SesConfigurationSetName', {});
  });

  it('publishes delivery, bounce, complaint, open, click, subscription, reject and rendering events to one topic', () => {
    const topic = idOf(prod.service, 'AWS::SNS::Topic');
    prod.service.resourceCountIs('AWS::SES::ConfigurationSetEventDestination', 1);
    const [destination] = Object.values(prod.service.findResources('AWS::SES::ConfigurationSetEventDestination')) as {
      Properties: { ConfigurationSetName: unknown; EventDestination: Record<string, unknown> };
    }[];
    expect(destination?.Properties.ConfigurationSetName).toEqual({
      Ref: idOf(prod.service, 'AWS::SES::ConfigurationSet'),
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
    const topic = idOf(prod.service, 'AWS::SNS::Topic');
    prod.service.hasResourceProperties('AWS::SNS::TopicPolicy', {
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
                  'Fn::Join': ['', Match.arrayWith([{ Ref: idOf(prod.service, 'AWS::SES::ConfigurationSet') }])],
                }),
              },
            },
          }),
        ]),
      },
    });
  });

  it('delivers the topic to the emailEvents queue in the SNS envelope, and only this topic may send there', () => {
    const topic = idOf(prod.service, 'AWS::SNS::Topic');
    const queue = queueId(prod, 'emailEvents');
    prod.service.resourceCountIs('AWS::SNS::Subscription', 1);
    prod.service.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'sqs',
      TopicArn: { Ref: topic },
      Endpoint: { 'Fn::GetAtt': [queue, 'Arn'] },
      RawMessageDelivery: false,
    });
    prod.service.hasResourceProperties('AWS::SQS::QueuePolicy', {
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
      expect(env[ENV.sesConfigurationSet]).toEqual({ Ref: idOf(prod.service, 'AWS::SES::ConfigurationSet') });
      expect(JSON.stringify(env[ENV.publicSendingUrl])).toContain(
        logicalId(prod.stacks.service, prod.stacks.service.apis.sending),
      );
    }
    // The grant itself, on a function of its own (independent of which catalog entries send mail).
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'MailerProbe', { env: { account: '123456789012', region: 'eu-west-1' } });
    new ServiceFunction(stack, 'Probe', {
      name: 'probe',
      entry: 'functions/unsubscribe/handler.ts',
      stage: 'test',
      timeout: Duration.seconds(10),
      memorySize: 256,
    })
      .useMailer({ configurationSetName: 'storeflow-test', sendingUrl: 'https://sending.example' })
      .useSesIdentities();
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
          Action: ['ses:CreateEmailIdentity', 'ses:GetEmailIdentity', 'ses:DeleteEmailIdentity'],
          Resource: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:ses:eu-west-1:123456789012:identity/*`]] },
        }),
      ]),
    );
    // No SES action on every resource: listing identities is not needed (a store's domains are in the table).
    expect(statements.filter((s) => String(s.Action).startsWith('ses:') && s.Resource === '*')).toEqual([]);
  });

  it('has no dependency cycle in the service template (functions that know their own host’s URL included)', () => {
    const resources = prod.service.toJSON().Resources as Record<string, Record<string, unknown>>;
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
  });
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
    dev.service.allResources('AWS::Logs::LogGroup', { DeletionPolicy: 'Delete' });
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
    expect(prod.stacks.service.stackName).toBe('Storeflow-prod-Service');
    expect(test.stacks.stateful.stackName).toBe('Storeflow-test-Stateful');
    expect(test.stacks.service.stackName).toBe('Storeflow-test-Service');
    test.service.hasOutput('FrontUrl', { Description: Match.stringLikeRegexp('front_test_url') });
    test.stateful.hasResource('AWS::DynamoDB::GlobalTable', { DeletionPolicy: 'Retain' });
  });

  it('rejects an unknown stage', () => {
    expect(() => parseStage('staging')).toThrow(/Unknown stage "staging"/);
    expect(() => buildApp(new App(), undefined)).toThrow(/Unknown stage/);
    expect(parseStage('dev')).toBe('dev');
  });
});
