/**
 * The modeled AWS bill per million events: the unit prices in one table, the merchant mix, and the
 * arithmetic that turns what the `cost` scenario counted per event of each class into dollars per component. Pure: the
 * scenario measures, this prices, the report prints both.
 *
 * Prices: us-east-1, on-demand list prices (no free tier, no savings plans), as published on the services' pricing
 * pages in 2026. A deployment in another region, or with reserved capacity, changes the figures but rarely which
 * component dominates.
 */

export interface UnitPrice {
  readonly usd: number;
  readonly per: string;
  readonly source: string;
}

export const PRICES = {
  apiRequest: { usd: 1.0 / 1e6, per: 'HTTP API request', source: 'https://aws.amazon.com/api-gateway/pricing/' },
  lambdaRequest: { usd: 0.2 / 1e6, per: 'Lambda invocation', source: 'https://aws.amazon.com/lambda/pricing/' },
  lambdaGbSecond: {
    usd: 0.0000133334,
    per: 'GB-second of Lambda on Arm (the stack deploys arm64)',
    source: 'https://aws.amazon.com/lambda/pricing/',
  },
  dynamoWriteUnit: {
    usd: 0.625 / 1e6,
    per: 'DynamoDB on-demand write request unit',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
  },
  dynamoReadUnit: {
    usd: 0.125 / 1e6,
    per: 'DynamoDB on-demand read request unit',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
  },
  sqsFifoRequest: { usd: 0.5 / 1e6, per: 'SQS FIFO request (64 KB)', source: 'https://aws.amazon.com/sqs/pricing/' },
  sqsStandardRequest: {
    usd: 0.4 / 1e6,
    per: 'SQS standard request (64 KB)',
    source: 'https://aws.amazon.com/sqs/pricing/',
  },
  snsPublish: { usd: 0.5 / 1e6, per: 'SNS publish (an SES event)', source: 'https://aws.amazon.com/sns/pricing/' },
  schedulerInvocation: {
    usd: 1.0 / 1e6,
    per: 'EventBridge Scheduler invocation',
    source: 'https://aws.amazon.com/eventbridge/pricing/',
  },
  sesEmail: { usd: 0.1 / 1000, per: 'SES email (recipient)', source: 'https://aws.amazon.com/ses/pricing/' },
  logsGb: {
    usd: 0.5,
    per: 'GB of CloudWatch Logs ingested (standard class)',
    source: 'https://aws.amazon.com/cloudwatch/pricing/',
  },
} as const satisfies Record<string, UnitPrice>;

/** The documented merchant mix: shares of the events a store sends, and the emails per event. */
export const MIX = {
  page_views: 0.45,
  carts: 0.2,
  customers: 0.15,
  orders: 0.1,
  other: 0.1,
} as const;
export type EventClass = keyof typeof MIX;
export const EMAILS_PER_EVENT = 0.1;

/** Lambda's START, END and REPORT lines of one invocation, which CloudWatch Logs ingests too (bytes, about). */
export const PLATFORM_LOG_BYTES_PER_INVOCATION = 350;

/** What one unit of work (one event of a class, or one email) used, averaged over a measured phase. */
export interface Usage {
  readonly apiRequests: number;
  /** Per function: invocations and billed milliseconds, with the function's memory. */
  readonly lambda: readonly { name: string; invocations: number; ms: number; memoryMb: number }[];
  readonly dynamoReadUnits: number;
  readonly dynamoWriteUnits: number;
  readonly sqsFifoRequests: number;
  readonly sqsStandardRequests: number;
  readonly snsPublishes: number;
  readonly schedulerInvocations: number;
  readonly sesEmails: number;
  readonly logBytes: number;
}

export const COMPONENTS = [
  'API Gateway',
  'Lambda requests',
  'Lambda duration',
  'DynamoDB writes',
  'DynamoDB reads',
  'SQS',
  'SNS',
  'Scheduler',
  'CloudWatch Logs',
  'SES',
] as const;
export type Component = (typeof COMPONENTS)[number];

/** Dollars per unit of work, by component. */
export const priceOf = (usage: Usage): Record<Component, number> => {
  const invocations = usage.lambda.reduce((n, fn) => n + fn.invocations, 0);
  const gbSeconds = usage.lambda.reduce((n, fn) => n + (fn.ms / 1000) * (fn.memoryMb / 1024), 0);
  return {
    'API Gateway': usage.apiRequests * PRICES.apiRequest.usd,
    'Lambda requests': invocations * PRICES.lambdaRequest.usd,
    'Lambda duration': gbSeconds * PRICES.lambdaGbSecond.usd,
    'DynamoDB writes': usage.dynamoWriteUnits * PRICES.dynamoWriteUnit.usd,
    'DynamoDB reads': usage.dynamoReadUnits * PRICES.dynamoReadUnit.usd,
    SQS: usage.sqsFifoRequests * PRICES.sqsFifoRequest.usd + usage.sqsStandardRequests * PRICES.sqsStandardRequest.usd,
    SNS: usage.snsPublishes * PRICES.snsPublish.usd,
    Scheduler: usage.schedulerInvocations * PRICES.schedulerInvocation.usd,
    'CloudWatch Logs':
      ((usage.logBytes + invocations * PLATFORM_LOG_BYTES_PER_INVOCATION) / 1024 ** 3) * PRICES.logsGb.usd,
    SES: usage.sesEmails * PRICES.sesEmail.usd,
  };
};

export interface Bill {
  /** Dollars per million events, by component, for the mix (events of each class, and the emails). */
  readonly perMillion: Record<Component, number>;
  /** Dollars per million events of each class alone, and per million emails (everything but the event that caused it). */
  readonly perMillionByClass: Record<EventClass | 'email', number>;
  readonly total: number;
  readonly nonSes: number;
  /** The largest component outside SES, and its share of the non-SES cost. */
  readonly dominant: { component: Component; share: number };
}

/** The bill per million events of the mix, from the usage per event of each class and per email. */
export const billFor = (perEvent: Record<EventClass, Usage>, perEmail: Usage): Bill => {
  const perMillion = Object.fromEntries(COMPONENTS.map((c) => [c, 0])) as Record<Component, number>;
  const add = (usage: Usage, weight: number) => {
    const prices = priceOf(usage);
    for (const c of COMPONENTS) perMillion[c] += prices[c] * weight * 1e6;
  };
  for (const [eventClass, share] of Object.entries(MIX) as [EventClass, number][]) add(perEvent[eventClass], share);
  add(perEmail, EMAILS_PER_EVENT);
  const sum = (prices: Record<Component, number>) => COMPONENTS.reduce((n, c) => n + prices[c], 0);
  const perMillionByClass = Object.fromEntries([
    ...(Object.keys(MIX) as EventClass[]).map((k) => [k, sum(priceOf(perEvent[k])) * 1e6]),
    ['email', sum(priceOf(perEmail)) * 1e6],
  ]) as Record<EventClass | 'email', number>;
  const total = sum(perMillion);
  const nonSes = total - perMillion.SES;
  const [component, dollars] = COMPONENTS.filter((c) => c !== 'SES')
    .map((c) => [c, perMillion[c]] as const)
    .sort((a, b) => b[1] - a[1])[0] as readonly [Component, number];
  return {
    perMillion,
    perMillionByClass,
    total,
    nonSes,
    dominant: { component, share: nonSes > 0 ? dollars / nonSes : 0 },
  };
};
