/**
 * Operating the deployed service: the alarms (DLQs, the age of each queue's oldest message, each API's 5xx rate,
 * error and throttle rates, events dropped, webhooks exhausted, SES reputation) behind one composite alarm on one SNS topic, the dashboard, the optional alarm email and custom domains, and the host
 * URLs as outputs.
 */
import { readFileSync } from 'node:fs';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { queueNames } from '#infra/constructs/names.ts';
import {
  FUNCTION_ERROR_RATE_PERCENT,
  OLDEST_MESSAGE_BUDGET_SECONDS,
  RUNBOOKS,
  SERVER_ERROR_RATE_PERCENT,
  SES_BOUNCE_RATE,
  SES_COMPLAINT_RATE,
} from '#infra/constructs/observability.ts';
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

  it('alarms on any message in each DLQ but the webhooks one (a store’s endpoint failing is judged as a rate)', () => {
    for (const name of Object.keys(QUEUES) as QueueName[]) {
      // Found by name: the DLQ lives in the stateful stack.
      const found = alarmsOn('ApproximateNumberOfMessagesVisible', {
        Name: 'QueueName',
        Value: queueNames('prod', name, QUEUES[name].fifo).dlq,
      });
      expect(found, name).toHaveLength(name === 'webhooks' ? 0 : 1);
      if (name !== 'webhooks') expect(found[0]?.Properties).toMatchObject({ Threshold: 0 });
    }
  });

  it('alarms on the age of each queue’s oldest message against its consumer’s budget', () => {
    for (const name of Object.keys(QUEUES) as QueueName[]) {
      const found = alarmsOn('ApproximateAgeOfOldestMessage', {
        Name: 'QueueName',
        Value: queueNames('prod', name, QUEUES[name].fifo).queue,
      });
      expect(found, name).toHaveLength(1);
      expect(found[0]?.Properties.Threshold).toBe(OLDEST_MESSAGE_BUDGET_SECONDS[name]);
      expect(found[0]?.Properties.Threshold as number).toBeGreaterThan(0);
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

  it('judges every function’s errors as a rate of its invocations, in a few alarms instead of two per function', () => {
    for (const spec of FUNCTIONS) {
      const dimension = { Name: 'FunctionName', Value: `storeflow-prod-${spec.name}` };
      const errors = alarmsOn('Errors', dimension);
      expect(errors, spec.name).toHaveLength(1);
      expect(alarmsOn('Invocations', dimension)).toEqual(errors);
      expect(alarmsOn('Throttles', dimension), spec.name).toHaveLength(0);
      expect(errors[0]?.Properties.Threshold).toBe(FUNCTION_ERROR_RATE_PERCENT);
    }
    expect(alarms.length).toBeLessThan(FUNCTIONS.length);
  });

  it('alarms on events dropped after acceptance, SES reputation, webhook exhaustion and throttles, each as a rate', () => {
    const on = (metric: string) => alarms.filter((alarm) => JSON.stringify(alarm.Properties).includes(`"${metric}"`));
    expect(on(BUSINESS_METRICS.eventsFailed)).toHaveLength(1);
    expect(JSON.stringify(on(BUSINESS_METRICS.eventsFailed)[0])).toContain(BUSINESS_METRICS.eventsAccepted);
    expect(on(BUSINESS_METRICS.webhookExhausted)).toHaveLength(1);
    expect(JSON.stringify(on(BUSINESS_METRICS.webhookExhausted)[0])).toContain(BUSINESS_METRICS.webhookAttempts);
    expect(on('Reputation.BounceRate')[0]?.Properties.Threshold).toBe(SES_BOUNCE_RATE);
    expect(on('Reputation.ComplaintRate')[0]?.Properties.Threshold).toBe(SES_COMPLAINT_RATE);
    const tableAlarms = on('WriteThrottleEvents').filter((alarm) =>
      JSON.stringify(alarm.Properties).includes(JSON.stringify(TABLE_PARAMETER)),
    );
    expect(tableAlarms).toHaveLength(1);
    expect(JSON.stringify(tableAlarms[0])).toContain('ConsumedWriteCapacityUnits');
    expect(on('Throttles')).toHaveLength(1);
    expect(JSON.stringify(on('Throttles')[0])).toContain('Invocations');
  });

  it('never alarms on `> 0` of a count a tenant can raise', () => {
    // What a store's own behaviour moves: its endpoint failing, its events refused or failed, its list bouncing,
    // its functions' errors on its input, throttles of its bursts.
    const tenantCounts = [
      ...Object.values(BUSINESS_METRICS),
      'Errors',
      'Throttles',
      'ThrottledRequests',
      'ReadThrottleEvents',
      'WriteThrottleEvents',
      '4xx',
      '5xx',
    ];
    const webhooksDlq = queueNames('prod', 'webhooks', QUEUES.webhooks.fifo).dlq;
    for (const alarm of alarms) {
      const props = alarm.Properties as { Threshold: number; MetricName?: string; Metrics?: unknown[] };
      const text = JSON.stringify(props);
      // A single metric, or an expression that is not a ratio: its threshold is a count.
      const isCount =
        props.MetricName !== undefined || !(props.Metrics ?? []).some((m) => JSON.stringify(m).includes(' / '));
      if (!isCount || props.Threshold > 0) continue;
      for (const metric of tenantCounts) expect(text, `${metric} > 0`).not.toContain(`"${metric}"`);
      expect(text).not.toContain(webhooksDlq);
    }
  });

  it('pages once per incident: one composite alarm over every alarm holds the only actions', () => {
    const topic = topicId(prod.stacks);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions ?? []).toEqual([]);
      expect(alarm.Properties.OKActions ?? []).toEqual([]);
    }
    const composites = Object.values(prod.ops.findResources('AWS::CloudWatch::CompositeAlarm')) as {
      Properties: { AlarmRule: unknown; AlarmActions: unknown; OKActions: unknown };
    }[];
    expect(composites).toHaveLength(1);
    const composite = composites[0]?.Properties;
    expect(composite?.AlarmActions).toEqual([{ Ref: topic }]);
    expect(composite?.OKActions).toEqual([{ Ref: topic }]);
    const rule = JSON.stringify(composite?.AlarmRule);
    const ids = Object.keys(prod.ops.findResources('AWS::CloudWatch::Alarm'));
    for (const id of ids) expect(rule, id).toContain(`"${id}"`);
    prod.ops.resourceCountIs('AWS::SNS::Subscription', 0); // no email by default
  });

  it('has a runbook in docs/operations.md for every alarm: what it means, what to look at, what to do', () => {
    const doc = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
    const sections = new Map<string, string>();
    for (const part of doc.split(/^### /m).slice(1)) {
      const [heading = '', ...body] = part.split('\n');
      sections.set(heading.trim(), body.join('\n'));
    }
    const descriptions = [
      ...alarms.map((alarm) => String(alarm.Properties.AlarmDescription)),
      ...Object.values(prod.ops.findResources('AWS::CloudWatch::CompositeAlarm')).map((c) =>
        String((c as { Properties: { AlarmDescription: string } }).Properties.AlarmDescription),
      ),
    ];
    for (const description of descriptions) {
      const heading = /Runbook: docs\/operations\.md, "([^"]+)"/.exec(description)?.[1];
      expect(heading, description).toBeDefined();
      const body = sections.get(heading ?? '');
      expect(body, `no section "${heading}"`).toBeDefined();
      for (const part of ['**What it means**', '**What to look at**', '**What to do**']) {
        expect(body, `${heading}: ${part}`).toContain(part);
      }
    }
    for (const heading of Object.values(RUNBOOKS)) expect(sections.has(heading), heading).toBe(true);
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
    expect(name).toBe('storeflow-prod-ops');
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
