import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  AlarmRule,
  AlarmState,
  ComparisonOperator,
  CompositeAlarm,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { QueueName } from '#shared/catalog/queues.ts';
import { BUSINESS_METRICS, type BusinessMetric, metricsNamespace } from '#shared/observability/business-metrics.ts';
import { dashboardName, pascalCase } from './names.ts';

/** A queue of the catalog with its dead-letter queue. */
export interface ObservedQueue {
  readonly queue: IQueue;
  readonly deadLetterQueue: IQueue;
}

export interface ObservabilityProps {
  readonly stage: string;
  /** The HTTP API of each host. */
  readonly apis: Readonly<Record<string, IHttpApi>>;
  /** Each catalog queue (by catalog name) with its DLQ. */
  readonly queues: ReadonlyMap<string, ObservedQueue>;
  /** Each catalog function (by catalog name). */
  readonly functions: ReadonlyMap<string, Pick<IFunction, 'metricErrors' | 'metricThrottles' | 'metricInvocations'>>;
  readonly table: Pick<TableV2, 'metric' | 'metricConsumedReadCapacityUnits' | 'metricConsumedWriteCapacityUnits'>;
  /** An address that receives every alarm (and must confirm the subscription SNS mails it). */
  readonly alarmEmail?: string;
}

/** 5xx answers above this share of an API's requests over five minutes alarm. */
export const SERVER_ERROR_RATE_PERCENT = 5;

/**
 * How old the oldest message of each queue may get before someone should look: its consumer's budget (how long the
 * work may normally wait, retries and pacing included), in seconds. Typed per catalog queue, so a new queue cannot
 * come without one. A candidate for the stage settings file.
 */
export const OLDEST_MESSAGE_BUDGET_SECONDS: Readonly<Record<QueueName, number>> = {
  ingest: 300, // events apply within seconds; five minutes behind means the worker is stuck or disabled
  webhooks: 1800, // six attempts held back 5 + 10 + 20 + 40 + 80 s, each up to the delivery timeout
  imports: 3600, // a job runs in 5-minute continuations
  timers: 600, // a fired timer (cart +1 h) should act within minutes of its time
  flows: 600,
  sends: 14_400, // a large campaign is paced at the stage's SES rate: 100,000 recipients at 14/s take two hours
  emailEvents: 900,
  counters: 300,
  segments: 3600,
  campaigns: 3600,
  backtests: 3600, // a job runs up to 15 minutes, a few side by side
};

/** Share of a group of functions' invocations that fail (unhandled error or timeout) before it alarms. */
export const FUNCTION_ERROR_RATE_PERCENT = 5;
/** Share of the account's Lambda invocations throttled before it alarms. */
export const LAMBDA_THROTTLE_RATE_PERCENT = 5;
/** Share of the table's consumed units that were throttled events before it alarms. */
export const TABLE_THROTTLE_RATE_PERCENT = 1;
/** Share of accepted events the worker could never apply before it alarms. */
export const EVENTS_FAILED_RATE_PERCENT = 1;
/** Share of webhook deliveries (across stores) that exhausted their retries before it alarms. */
export const WEBHOOKS_EXHAUSTED_RATE_PERCENT = 10;
/**
 * SES reputation (account-wide, a rate between 0 and 1): AWS reviews an account at a 5 % bounce and a 0.1 % complaint
 * rate; these alarm before that.
 */
export const SES_BOUNCE_RATE = 0.04;
export const SES_COMPLAINT_RATE = 0.0008;

/** Functions per error-rate alarm: two metrics each, and an alarm's expression takes at most ten. */
const FUNCTIONS_PER_ERROR_ALARM = 5;

const FIVE_MINUTES = Duration.minutes(5);
const SUM5 = { period: FIVE_MINUTES, statistic: 'Sum' } as const;

/** Where the runbook of each alarm kind is, by its heading in docs/operations.md. */
export const RUNBOOKS = {
  deadLetters: 'Messages in a dead-letter queue',
  oldestMessage: 'Oldest message over its budget',
  api5xx: 'API 5xx rate',
  functionErrors: 'Function error rate',
  lambdaThrottles: 'Lambda throttle rate',
  tableThrottles: 'Table throttle rate',
  eventsFailed: 'Events dropped after acceptance',
  webhooksExhausted: 'Webhook deliveries exhausted',
  sesBounces: 'SES bounce rate',
  sesComplaints: 'SES complaint rate',
  stage: 'Stage in trouble (the page)',
} as const;

/**
 * Operating the service: alarms on what needs a person, each judged on a rate or an age against a budget (never `> 0`
 * on a count a tenant can raise), none with actions of its own: one composite alarm over all of them pages the SNS
 * topic (with an optional email subscription) once per incident, and says when it is over. One dashboard with the
 * APIs, the queues and the business metrics (`shared/observability/business-metrics.ts`).
 */
export class Observability extends Construct {
  readonly alarmTopic: Topic;
  readonly dashboard: Dashboard;
  readonly alarms: Alarm[] = [];
  readonly page: CompositeAlarm;

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    this.alarmTopic = new Topic(this, 'AlarmTopic', {
      displayName: `Storeflow ${props.stage} alarms`,
      enforceSSL: true,
    });
    // Its subscriptions (email, paging) are set up by hand outside dev: it outlives its removal from the template.
    this.alarmTopic.applyRemovalPolicy(props.stage === 'dev' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN);
    // `enforceSSL` gives the topic a resource policy of its own, which replaces SNS's default one (that let the
    // account's services publish): without this grant CloudWatch's alarm actions are refused and nobody is notified.
    this.alarmTopic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.alarmTopic.topicArn],
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
    );
    if (props.alarmEmail) this.alarmTopic.addSubscription(new EmailSubscription(props.alarmEmail));

    const max1 = { period: Duration.minutes(1), statistic: 'Maximum' } as const;
    for (const [name, { queue, deadLetterQueue }] of props.queues) {
      if (name !== 'webhooks') {
        // A message in these DLQs is one the service gave up on for its own reasons (a tenant's bad input is recorded
        // as failed on the item, never dead-lettered): always worth a look. Webhook deliveries exhaust when a store's
        // endpoint is down, which is the store's business: they are judged as a rate below.
        this.alarm(`${pascalCase(name)}DlqNotEmpty`, {
          metric: deadLetterQueue.metricApproximateNumberOfMessagesVisible(max1),
          threshold: 0,
          runbook: RUNBOOKS.deadLetters,
          description: `Messages in the ${name} DLQ`,
        });
      }
      const budget = OLDEST_MESSAGE_BUDGET_SECONDS[name as QueueName];
      this.alarm(`${pascalCase(name)}OldestMessageAge`, {
        metric: queue.metricApproximateAgeOfOldestMessage({ period: FIVE_MINUTES, statistic: 'Maximum' }),
        threshold: budget,
        evaluationPeriods: 2,
        runbook: RUNBOOKS.oldestMessage,
        description: `The oldest message of the ${name} queue waited more than ${budget} s (its consumer's budget) for 10 minutes`,
      });
    }

    for (const [host, api] of Object.entries(props.apis)) {
      this.alarm(`${pascalCase(host)}Api5xxRate`, {
        metric: this.rate(`${host} 5xx %`, api.metricServerError(SUM5), api.metricCount(SUM5)),
        threshold: SERVER_ERROR_RATE_PERCENT,
        runbook: RUNBOOKS.api5xx,
        description: `More than ${SERVER_ERROR_RATE_PERCENT}% of the ${host} API's requests answered 5xx over 5 minutes`,
      });
    }

    const functions = [...props.functions.entries()];
    for (let start = 0, group = 1; start < functions.length; start += FUNCTIONS_PER_ERROR_ALARM, group++) {
      const chunk = functions.slice(start, start + FUNCTIONS_PER_ERROR_ALARM);
      const usingMetrics: Record<string, IMetric> = {};
      chunk.forEach(([, fn], i) => {
        usingMetrics[`e${i}`] = fn.metricErrors(SUM5);
        usingMetrics[`n${i}`] = fn.metricInvocations(SUM5);
      });
      const errors = chunk.map((_, i) => `FILL(e${i}, 0)`).join(' + ');
      const invocations = chunk.map((_, i) => `FILL(n${i}, 0)`).join(' + ');
      const names = chunk.map(([name]) => name).join(', ');
      this.alarm(`FunctionErrorRate${group}`, {
        metric: new MathExpression({
          expression: `IF((${invocations}) > 0, 100 * (${errors}) / (${invocations}), 0)`,
          usingMetrics,
          label: `errors % (${names})`,
          period: FIVE_MINUTES,
        }),
        threshold: FUNCTION_ERROR_RATE_PERCENT,
        evaluationPeriods: 2,
        runbook: RUNBOOKS.functionErrors,
        description: `More than ${FUNCTION_ERROR_RATE_PERCENT}% of the invocations of ${names} failed for 10 minutes`,
      });
    }

    // Lambda's account-wide series (no dimension): a throttle anywhere in the account takes this stage's concurrency too.
    const lambda = (metricName: string) => new Metric({ namespace: 'AWS/Lambda', metricName, ...SUM5 });
    this.alarm('LambdaThrottleRate', {
      metric: new MathExpression({
        expression: 'IF(FILL(n, 0) + FILL(t, 0) > 0, 100 * FILL(t, 0) / (FILL(n, 0) + FILL(t, 0)), 0)',
        usingMetrics: { t: lambda('Throttles'), n: lambda('Invocations') },
        label: 'Lambda throttled %',
        period: FIVE_MINUTES,
      }),
      threshold: LAMBDA_THROTTLE_RATE_PERCENT,
      evaluationPeriods: 3,
      runbook: RUNBOOKS.lambdaThrottles,
      description: `More than ${LAMBDA_THROTTLE_RATE_PERCENT}% of the account's Lambda invocations throttled for 15 minutes`,
    });

    this.alarm('TableThrottleRate', {
      metric: new MathExpression({
        expression:
          'IF(FILL(rc, 0) + FILL(wc, 0) > 0, 100 * (FILL(rt, 0) + FILL(wt, 0)) / (FILL(rc, 0) + FILL(wc, 0)), 0)',
        usingMetrics: {
          rt: props.table.metric('ReadThrottleEvents', SUM5),
          wt: props.table.metric('WriteThrottleEvents', SUM5),
          rc: props.table.metricConsumedReadCapacityUnits(SUM5),
          wc: props.table.metricConsumedWriteCapacityUnits(SUM5),
        },
        label: 'table throttled %',
        period: FIVE_MINUTES,
      }),
      threshold: TABLE_THROTTLE_RATE_PERCENT,
      evaluationPeriods: 3,
      runbook: RUNBOOKS.tableThrottles,
      description:
        `Throttle events over ${TABLE_THROTTLE_RATE_PERCENT}% of the table's consumed units for 15 minutes ` +
        '(one large campaign throttling a partition for a minute retries and does not page)',
    });

    const business = (metricName: string, dimensionsMap: Record<string, string> = {}) =>
      new Metric({
        namespace: metricsNamespace(props.stage),
        metricName,
        // Alarms cannot use SEARCH: the metrics are named with the dimensions the functions emit (`service` is
        // Powertools' own).
        dimensionsMap: { service: 'storeflow', ...dimensionsMap },
        ...SUM5,
      });
    this.alarm('EventsFailedRate', {
      metric: new MathExpression({
        expression:
          'IF(FILL(ag, 0) + FILL(ah, 0) > 0, 100 * (FILL(fg, 0) + FILL(fh, 0)) / (FILL(ag, 0) + FILL(ah, 0)), 0)',
        usingMetrics: {
          fg: business(BUSINESS_METRICS.eventsFailed, { interface: 'general' }),
          fh: business(BUSINESS_METRICS.eventsFailed, { interface: 'headless' }),
          ag: business(BUSINESS_METRICS.eventsAccepted, { interface: 'general' }),
          ah: business(BUSINESS_METRICS.eventsAccepted, { interface: 'headless' }),
        },
        label: 'events failed %',
        period: FIVE_MINUTES,
      }),
      threshold: EVENTS_FAILED_RATE_PERCENT,
      evaluationPeriods: 2,
      runbook: RUNBOOKS.eventsFailed,
      description: `More than ${EVENTS_FAILED_RATE_PERCENT}% of accepted events could never be applied, for 10 minutes`,
    });

    this.alarm('WebhooksExhaustedRate', {
      metric: new MathExpression({
        expression: 'IF(FILL(a, 0) > 0, 100 * FILL(x, 0) / a, 0)',
        usingMetrics: {
          x: business(BUSINESS_METRICS.webhookExhausted),
          a: business(BUSINESS_METRICS.webhookAttempts),
        },
        label: 'webhook deliveries exhausted %',
        period: FIVE_MINUTES,
      }),
      threshold: WEBHOOKS_EXHAUSTED_RATE_PERCENT,
      evaluationPeriods: 3,
      runbook: RUNBOOKS.webhooksExhausted,
      description:
        `More than ${WEBHOOKS_EXHAUSTED_RATE_PERCENT}% of webhook delivery attempts, across stores, were last ` +
        'attempts that failed, for 15 minutes',
    });

    const ses = (metricName: string) =>
      new Metric({ namespace: 'AWS/SES', metricName, statistic: 'Maximum', period: Duration.hours(1) });
    this.alarm('SesBounceRate', {
      metric: ses('Reputation.BounceRate'),
      threshold: SES_BOUNCE_RATE,
      runbook: RUNBOOKS.sesBounces,
      description: `The account's SES bounce rate is over ${SES_BOUNCE_RATE * 100}% (AWS reviews at 5%)`,
    });
    this.alarm('SesComplaintRate', {
      metric: ses('Reputation.ComplaintRate'),
      threshold: SES_COMPLAINT_RATE,
      runbook: RUNBOOKS.sesComplaints,
      description: `The account's SES complaint rate is over ${SES_COMPLAINT_RATE * 100}% (AWS reviews at 0.1%)`,
    });

    // One incident pages once: the composite goes to ALARM with the first alarm and stays there while others join,
    // and its OK says the incident is over.
    this.page = new CompositeAlarm(this, 'StageInTrouble', {
      alarmRule: AlarmRule.anyOf(...this.alarms.map((alarm) => AlarmRule.fromAlarm(alarm, AlarmState.ALARM))),
      alarmDescription: `Storeflow ${props.stage}: at least one alarm is in ALARM. Runbook: docs/operations.md, "${RUNBOOKS.stage}"`,
    });
    this.page.addAlarmAction(new SnsAction(this.alarmTopic));
    this.page.addOkAction(new SnsAction(this.alarmTopic));

    this.dashboard = this.buildDashboard(props);
  }

  /** A percentage of two sums, 0 when nothing was counted. */
  private rate(label: string, part: IMetric, whole: IMetric): MathExpression {
    return new MathExpression({
      expression: 'IF(requests > 0, 100 * errors / requests, 0)',
      usingMetrics: { errors: part, requests: whole },
      label,
      period: FIVE_MINUTES,
    });
  }

  private alarm(
    id: string,
    options: { metric: IMetric; threshold: number; description: string; runbook: string; evaluationPeriods?: number },
  ): Alarm {
    const alarm = new Alarm(this, id, {
      metric: options.metric,
      threshold: options.threshold,
      evaluationPeriods: options.evaluationPeriods ?? 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      // No data (no traffic, an empty queue) is normal, not an alarm.
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: `${options.description}. Runbook: docs/operations.md, "${options.runbook}"`,
    });
    this.alarms.push(alarm);
    return alarm;
  }

  private buildDashboard(props: ObservabilityProps): Dashboard {
    const dashboard = new Dashboard(this, 'Dashboard', {
      // Not `storeflow-<stage>`: the pre-release layout's dashboard had that name, and the two may exist side by side.
      dashboardName: dashboardName(props.stage),
      defaultInterval: Duration.hours(3),
    });
    const apis = Object.entries(props.apis);
    const queues = [...props.queues.entries()];
    const sum = { period: FIVE_MINUTES, statistic: 'Sum' } as const;
    dashboard.addWidgets(
      new TextWidget({
        markdown: `# Storeflow ${props.stage}\nAPIs, queues and business metrics. Alarms go to the SNS topic \`${this.alarmTopic.node.id}\`.`,
        width: 24,
        height: 2,
      }),
    );
    dashboard.addWidgets(
      new GraphWidget({
        title: 'API requests',
        left: apis.map(([host, api]) => api.metricCount({ ...sum, label: host })),
        width: 8,
      }),
      new GraphWidget({
        title: 'API 5xx and 4xx',
        left: apis.map(([host, api]) => api.metricServerError({ ...sum, label: `${host} 5xx` })),
        right: apis.map(([host, api]) => api.metricClientError({ ...sum, label: `${host} 4xx` })),
        width: 8,
      }),
      new GraphWidget({
        title: 'API latency (p50, p99)',
        left: apis.flatMap(([host, api]) => [
          api.metricLatency({ period: FIVE_MINUTES, statistic: 'p50', label: `${host} p50` }),
          api.metricLatency({ period: FIVE_MINUTES, statistic: 'p99', label: `${host} p99` }),
        ]),
        width: 8,
      }),
    );
    const max = { period: Duration.minutes(1), statistic: 'Maximum' } as const;
    dashboard.addWidgets(
      new GraphWidget({
        title: 'Queue depth (visible messages)',
        left: queues.map(([name, q]) => q.queue.metricApproximateNumberOfMessagesVisible({ ...max, label: name })),
        width: 8,
      }),
      new GraphWidget({
        title: 'Oldest message age (s)',
        left: queues.map(([name, q]) => q.queue.metricApproximateAgeOfOldestMessage({ ...max, label: name })),
        width: 8,
      }),
      new GraphWidget({
        title: 'DLQ depth',
        left: queues.map(([name, q]) =>
          q.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ ...max, label: `${name} DLQ` }),
        ),
        width: 8,
      }),
    );
    const business = (title: string, names: readonly BusinessMetric[]) =>
      new GraphWidget({
        title,
        left: names.map((name) => this.businessMetric(props.stage, name)),
        width: 8,
      });
    dashboard.addWidgets(
      business('Events', [
        BUSINESS_METRICS.eventsAccepted,
        BUSINESS_METRICS.eventsDuplicate,
        BUSINESS_METRICS.eventsRejected,
        BUSINESS_METRICS.eventsFailed,
      ]),
      business('Flows', [
        BUSINESS_METRICS.flowRunsStarted,
        BUSINESS_METRICS.flowEmailsSent,
        BUSINESS_METRICS.flowEmailsSkipped,
      ]),
      business('Webhooks', [
        BUSINESS_METRICS.webhookAttempts,
        BUSINESS_METRICS.webhookFailures,
        BUSINESS_METRICS.webhookExhausted,
      ]),
    );
    dashboard.addWidgets(
      business('Bulk sending', [
        BUSINESS_METRICS.bulkRecipientsAccepted,
        BUSINESS_METRICS.bulkRecipientsRejected,
        BUSINESS_METRICS.marketingSendsPaused,
        BUSINESS_METRICS.sendClaimsRetaken,
      ]),
      business('Email events', [BUSINESS_METRICS.emailEvents]),
      new GraphWidget({
        title: 'Function errors and throttles',
        left: [...props.functions.values()].map((fn) => fn.metricErrors(sum)),
        right: [...props.functions.values()].map((fn) => fn.metricThrottles(sum)),
        width: 8,
      }),
    );
    return dashboard;
  }

  /**
   * A business metric summed over whatever dimensions it is emitted with (`interface`, `reason`, `type`): a search
   * finds each series, so a new reason shows without a deploy.
   */
  private businessMetric(stage: string, name: BusinessMetric): MathExpression {
    return new MathExpression({
      expression: `SUM(SEARCH('{${metricsNamespace(stage)}} MetricName="${name}"', 'Sum', 300))`,
      label: name,
      period: FIVE_MINUTES,
    });
  }
}
