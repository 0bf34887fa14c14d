/**
 * Operating the deployed service: the alarms (every DLQ, each API's 5xx rate, each function's errors and throttles,
 * DynamoDB throttles) wired to one SNS topic, the dashboard, the optional alarm email and custom domains, and the host
 * URLs as outputs.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { queueNames } from '#infra/constructs/names.ts';
import { SERVER_ERROR_RATE_PERCENT } from '#infra/constructs/observability.ts';
import type { StoreflowStacks } from '#infra/deployment.ts';
import { FUNCTIONS } from '#shared/catalog/functions.ts';
import { HOSTS } from '#shared/catalog/hosts.ts';
import { QUEUES, type QueueName } from '#shared/catalog/queues.ts';
import { ENV } from '#shared/config.ts';
import { BUSINESS_METRICS } from '#shared/observability/business-metrics.ts';
import { functionOf, logicalId, parameterRef, synth } from './synth.ts';

const prod = synth('prod');
const TABLE_PARAMETER = parameterRef(prod.ops, 'prod', 'table-name');
const alarms = Object.values(prod.ops.findResources('AWS::CloudWatch::Alarm')) as {
  Properties: Record<string, unknown>;
}[];
const topicId = (stacks: StoreflowStacks) => logicalId(stacks.ops, stacks.ops.observability.alarmTopic);

/** The alarms whose metric (or one of the metrics of their expression) has this name and dimension reference. */
const alarmsOn = (metricName: string, dimension: unknown) =>
  alarms.filter((alarm) => {
    const props = alarm.Properties;
    const metrics = (props.Metrics as { MetricStat?: { Metric: Record<string, unknown> } }[] | undefined)
      ?.map((m) => m.MetricStat?.Metric)
      .filter(Boolean) ?? [{ MetricName: props.MetricName, Dimensions: props.Dimensions }];
    return metrics.some(
      (m) => m?.MetricName === metricName && JSON.stringify(m.Dimensions ?? []).includes(JSON.stringify(dimension)),
    );
  });

describe('alarms', () => {
  it('lets CloudWatch publish to the TLS-only alarm topic (its own policy replaces SNS’s default one)', () => {
    const topic = topicId(prod.stacks);
    prod.ops.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: topic }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: 'sns:Publish',
            Resource: { Ref: topic },
            Condition: { StringEquals: { 'aws:SourceAccount': Match.anyValue() } },
          }),
        ]),
      },
    });
  });

  it('alarms on any message in each queue’s DLQ', () => {
    for (const name of Object.keys(QUEUES) as QueueName[]) {
      // Found by name: the DLQ lives in the stateful stack.
      const found = alarmsOn('ApproximateNumberOfMessagesVisible', {
        Name: 'QueueName',
        Value: queueNames('prod', name, QUEUES[name].fifo).dlq,
      });
      expect(found, name).toHaveLength(1);
      expect(found[0]?.Properties).toMatchObject({
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        TreatMissingData: 'notBreaching',
      });
    }
  });

  it('alarms on the 5xx rate of each HTTP API', () => {
    for (const host of HOSTS) {
      const found = alarmsOn('5xx', { Name: 'ApiId', Value: parameterRef(prod.ops, 'prod', `api-id/${host}`) });
      expect(found, host).toHaveLength(1);
      const props = found[0]?.Properties as { Threshold: number; Metrics: { Expression?: string }[] };
      expect(props.Threshold).toBe(SERVER_ERROR_RATE_PERCENT);
      expect(props.Metrics.some((m) => m.Expression?.includes('100 * errors / requests'))).toBe(true);
    }
  });

  it('alarms on the errors and the throttles of every function of the catalog', () => {
    for (const spec of FUNCTIONS) {
      // Found by name: the function lives in its area's stack, named as the catalog entry.
      expect(functionOf(prod, spec.name).fn.lambda.functionName).toBeDefined();
      const dimension = { Name: 'FunctionName', Value: `storeflow-prod-${spec.name}` };
      expect(alarmsOn('Errors', dimension), spec.name).toHaveLength(1);
      expect(alarmsOn('Throttles', dimension), spec.name).toHaveLength(1);
    }
  });

  it("alarms when a store's marketing mail is paused by the sending guard", () => {
    const guard = alarms.filter((alarm) =>
      JSON.stringify(alarm.Properties.Metrics ?? []).includes('MarketingSendsPaused'),
    );
    expect(guard).toHaveLength(1);
    expect(guard[0]?.Properties.Threshold).toBe(0);
  });

  it('alarms on DynamoDB throttles of the service table', () => {
    const found = alarmsOn('ThrottledRequests', { Name: 'Operation', Value: 'PutItem' }).filter((alarm) =>
      JSON.stringify(alarm.Properties).includes(JSON.stringify(TABLE_PARAMETER)),
    );
    expect(found).toHaveLength(1);
    expect(found[0]?.Properties.Threshold).toBe(0);
  });

  it('sends every alarm, and its recovery, to the one alarm topic', () => {
    const topic = topicId(prod.stacks);
    // Per queue, per API, two per function, the table's throttles and the sending guard.
    expect(alarms.length).toBe(Object.keys(QUEUES).length + HOSTS.length + 2 * FUNCTIONS.length + 2);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topic }]);
      expect(alarm.Properties.OKActions).toEqual([{ Ref: topic }]);
    }
    prod.ops.resourceCountIs('AWS::SNS::Subscription', 0); // no email by default
  });

  it('subscribes the alarm email when one is given', () => {
    const withEmail = synth('prod', { alarmEmail: 'ops@shop.example' });
    withEmail.ops.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@shop.example',
      TopicArn: { Ref: topicId(withEmail.stacks) },
    });
  });
});

describe('dashboard', () => {
  const body = () => {
    const [dashboard] = Object.values(prod.ops.findResources('AWS::CloudWatch::Dashboard')) as {
      Properties: { DashboardName: string; DashboardBody: unknown };
    }[];
    return { name: dashboard?.Properties.DashboardName, text: JSON.stringify(dashboard?.Properties.DashboardBody) };
  };

  it('is one dashboard per stage with the APIs, the queues and every business metric', () => {
    prod.ops.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    const { name, text } = body();
    expect(name).toBe('storeflow-prod');
    for (const title of [
      'API requests',
      'API 5xx and 4xx',
      'API latency',
      'Queue depth',
      'Oldest message age',
      'DLQ depth',
    ]) {
      expect(text).toContain(title);
    }
    for (const metric of Object.values(BUSINESS_METRICS)) {
      expect(text).toContain(`MetricName=\\\\\\"${metric}\\\\\\"`);
    }
    expect(text).toContain('Storeflow/prod');
  });
});

describe('outputs and domains', () => {
  it('outputs the host URLs (and the test stage’s front as {front_test_url})', () => {
    const outputs = prod.edge.toJSON().Outputs as Record<string, unknown>;
    expect(Object.keys(outputs)).toEqual(expect.arrayContaining(['MainUrl', 'FrontUrl', 'SendingUrl']));
    expect(Object.keys(prod.ops.toJSON().Outputs as object)).toEqual(
      expect.arrayContaining(['AlarmTopicArn', 'DashboardName']),
    );
    expect(outputs.FrontTestUrl).toBeUndefined();
    const test = synth('test').edge.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(test.FrontTestUrl?.Value).toEqual(test.FrontUrl?.Value);
  });

  it('maps custom domains to the APIs and uses them as the public URLs', () => {
    const withDomains = synth('prod', {
      certificateArn: 'arn:aws:acm:us-east-1:111111111111:certificate/abc',
      mainDomain: 'api.shop.example',
      frontDomain: 'front.shop.example',
    });
    withDomains.edge.resourceCountIs('AWS::ApiGatewayV2::DomainName', 2);
    withDomains.edge.hasResourceProperties('AWS::ApiGatewayV2::DomainName', {
      DomainName: 'api.shop.example',
      DomainNameConfigurations: [
        Match.objectLike({ CertificateArn: 'arn:aws:acm:us-east-1:111111111111:certificate/abc' }),
      ],
    });
    withDomains.edge.resourceCountIs('AWS::ApiGatewayV2::ApiMapping', 2);
    const outputs = withDomains.edge.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(outputs.MainUrl?.Value).toBe('https://api.shop.example');
    expect(outputs.FrontUrl?.Value).toBe('https://front.shop.example');
    expect(outputs.MainDomainTarget).toBeDefined();
    expect(JSON.stringify(outputs.SendingUrl?.Value)).toContain('SendingApi');
    // The functions read the public URLs the edge stack publishes, and it publishes the custom domains.
    withDomains.edge.hasResourceProperties('AWS::SSM::Parameter', {
      Name: '/storeflow/prod/public-url/front',
      Value: 'https://front.shop.example',
    });
    const openapi = functionOf(withDomains, 'openapi-document');
    openapi.template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          [ENV.publicFrontUrl]: parameterRef(openapi.template, 'prod', 'public-url/front'),
        }),
      },
    });
  });

  it('refuses domain names without a certificate', () => {
    expect(() => synth('prod', { mainDomain: 'api.shop.example' })).toThrow(/certificateArn/);
  });
});
