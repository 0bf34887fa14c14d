/**
 * What a deploy of a stage builds, and what it may not lose: the committed stage file (infra/stages/<stage>.json)
 * decides it, so two deploys with the same file build the same templates; durable resources outlive a deploy that
 * drops or replaces them; the names and exports of the current release stay (infra/stages/release-names.json); and
 * docs/deploy.md, docs/capacity.md say what the synth builds. One synth per stage setting, shared by the file.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { allStacks } from '#infra/deployment.ts';
import { parseStageFile, readStageFile } from '#infra/stage-file.ts';
import { releaseNames } from './release-names.ts';
import { type Synthesized, synth } from './synth.ts';

const DOMAINS = {
  certificateArn: 'arn:aws:acm:us-east-1:111111111111:certificate/abc',
  mainDomain: 'api.shop.example',
  alarmEmail: 'ops@shop.example',
};
const first = synth('prod', DOMAINS);
const second = synth('prod', DOMAINS);
const testStage = synth('test');

const templates = (s: Synthesized) =>
  Object.fromEntries(s.all.map(({ stack, template }) => [stack.stackName, template.toJSON()]));

/** Resource types whose deletion loses something a new one cannot give back (a URL, pending work, a subscription). */
const DURABLE_TYPES = [
  'AWS::DynamoDB::GlobalTable',
  'AWS::S3::Bucket',
  'AWS::SecretsManager::Secret',
  'AWS::SQS::Queue',
  'AWS::Scheduler::ScheduleGroup',
  'AWS::SES::ConfigurationSet',
  'AWS::SNS::Topic',
  'AWS::ApiGatewayV2::Api',
  'AWS::ApiGatewayV2::DomainName',
];

interface Resource {
  readonly Type: string;
  readonly DeletionPolicy?: string;
  readonly UpdateReplacePolicy?: string;
}

/** Every durable resource a deploy could delete: one without RETAIN on deletion and on replacement. */
const deletable = (s: Synthesized) =>
  s.all.flatMap(({ stack, template }) =>
    Object.entries((template.toJSON().Resources ?? {}) as Record<string, Resource>)
      .filter(([, r]) => DURABLE_TYPES.includes(r.Type))
      .filter(([, r]) => r.DeletionPolicy !== 'Retain' || r.UpdateReplacePolicy !== 'Retain')
      .map(([id, r]) => `${stack.stackName}/${id} (${r.Type})`),
  );

describe('the stage file', () => {
  it("sets the table's maximum on-demand throughput, within bounds", () => {
    const table = readStageFile('prod').table;
    expect(table?.maxWriteRequestUnits).toBeGreaterThan(0);
    first.stateful.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      WriteOnDemandThroughputSettings: { MaxWriteRequestUnits: table?.maxWriteRequestUnits },
      BillingMode: 'PAY_PER_REQUEST',
    });
    const file = { alarmEmail: null, customDomains: null, settings: {} };
    expect(() => parseStageFile({ ...file, table: { maxReadRequestUnits: 1, maxWriteRequestUnits: 0 } }, 'f')).toThrow(
      /table.maxWriteRequestUnits/,
    );
  });
});

describe('a second deploy with the same stage file', () => {
  it('builds the same templates (cdk diff empty)', () => {
    expect(templates(second)).toEqual(templates(first));
  });
});

describe('durable resources', () => {
  it('outlive a deploy that drops or replaces them outside dev (RETAIN), domains and alarm topic included', () => {
    first.edge.resourceCountIs('AWS::ApiGatewayV2::DomainName', 1);
    expect(deletable(first)).toEqual([]);
    expect(deletable(testStage)).toEqual([]);
  });

  it('live in termination-protected stacks outside dev; the area stacks hold none of them', () => {
    const s = first.stacks;
    for (const stack of [s.stateful, s.edge, s.ops]) expect(stack.terminationProtection, stack.stackName).toBe(true);
    for (const template of Object.values(first.areas)) {
      for (const type of DURABLE_TYPES) template.resourceCountIs(type, 0);
    }
  });
});

describe('the names of the current release', () => {
  const recorded = JSON.parse(readFileSync('infra/stages/release-names.json', 'utf8')) as ReturnType<
    typeof releaseNames
  >;
  const current = releaseNames(first);

  it('are all still built: stacks, outputs, exports and physical names (infra/stages/release-names.json)', () => {
    expect(current.stacks).toEqual(expect.arrayContaining(recorded.stacks));
    for (const [stack, outputs] of Object.entries(recorded.outputs)) {
      expect(current.outputs[stack], stack).toEqual(expect.arrayContaining(outputs));
    }
    expect(current.exports).toEqual(expect.arrayContaining(recorded.exports));
    expect(current.physicalNames).toEqual(expect.arrayContaining(recorded.physicalNames));
  });

  it("give the dashboard a name of its own, not the pre-release layout's storeflow-<stage>", () => {
    expect(current.physicalNames).toContain('storeflow-prod-ops');
    expect(current.physicalNames).not.toContain('storeflow-prod');
  });
});

const NUMBERS = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
];
const resourceCount = (template: { toJSON: () => { Resources?: object } }) =>
  Object.keys(template.toJSON().Resources ?? {}).length;

describe('the deployment docs', () => {
  const deploy = readFileSync('docs/deploy.md', 'utf8');
  const capacity = readFileSync('docs/capacity.md', 'utf8');
  const readme = readFileSync('README.md', 'utf8');
  const stacks = allStacks(first.stacks);
  const suffix = (name: string) => name.replace('Storeflow-prod', '');

  it('give the number of stacks and list them as synthesized', () => {
    const count = /(\w+) CloudFormation stacks per stage/.exec(deploy)?.[1];
    expect(NUMBERS.indexOf(count ?? '')).toBe(stacks.length);
    const table = deploy.slice(deploy.indexOf('| Stack '), deploy.indexOf('\n\n', deploy.indexOf('| Stack ')));
    const listed = [...table.matchAll(/`(?:Storeflow-<stage>)?(-[A-Z][A-Za-z]+)`/g)].map((m) => m[1]);
    expect(listed.sort()).toEqual(stacks.map((st) => suffix(st.stackName)).sort());
    expect(readme).not.toMatch(/Two stacks per stage|-Service`/);
  });

  it('give the resource counts of the largest area stack and the ops stack (a stage file without alarm email)', () => {
    const areas = Object.entries(testStage.areas).map(([area, template]) => ({ area, count: resourceCount(template) }));
    const largest = areas.reduce((a, b) => (b.count > a.count ? b : a));
    const stated = /the largest area stack \(`-(\w+)`\) has (\d+) resources, the ops stack (\d+)/.exec(deploy);
    expect(stated, 'docs/deploy.md states the counts').not.toBeNull();
    expect(stated?.[1]?.toLowerCase()).toBe(largest.area.toLowerCase());
    expect(Number(stated?.[2])).toBe(largest.count);
    expect(Number(stated?.[3])).toBe(resourceCount(testStage.ops));
  });

  it("give the workers' total concurrency as the event source mappings set it", () => {
    const total = Object.values(first.areas)
      .flatMap((template) =>
        Object.values(
          template.findResources('AWS::Lambda::EventSourceMapping') as Record<
            string,
            { Properties: { ScalingConfig?: { MaximumConcurrency?: number } } }
          >,
        ),
      )
      .reduce((sum, r) => sum + (r.Properties.ScalingConfig?.MaximumConcurrency ?? 0), 0);
    expect(Number(/, (\d+) in all/.exec(capacity)?.[1])).toBe(total);
    expect(Number(/workers at most (\d+)/.exec(capacity)?.[1])).toBe(total);
    expect(Number(/segments \d+, campaigns \d+: (\d+)\)/.exec(capacity)?.[1])).toBe(total);
  });
});

describe('SES event publishing', () => {
  it('sends an event SNS cannot deliver to the email-events queue to its DLQ, which accepts it from that topic only', () => {
    const subscription = Object.values(
      first.stateful.findResources('AWS::SNS::Subscription', { Properties: { Protocol: 'sqs' } }) as Record<
        string,
        { Properties: { RedrivePolicy?: { deadLetterTargetArn?: unknown } } }
      >,
    );
    expect(subscription).toHaveLength(1);
    const target = JSON.stringify(subscription[0]?.Properties.RedrivePolicy?.deadLetterTargetArn);
    expect(target).toMatch(/EmailEventsDlq/);
    const dlqPolicies = Object.values(first.stateful.findResources('AWS::SQS::QueuePolicy')).filter((p) =>
      JSON.stringify((p as { Properties: { Queues: unknown } }).Properties.Queues).includes('EmailEventsDlq'),
    );
    const statements = dlqPolicies.flatMap(
      (p) =>
        (p as { Properties: { PolicyDocument: { Statement: Record<string, unknown>[] } } }).Properties.PolicyDocument
          .Statement,
    );
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Allow',
        Principal: { Service: 'sns.amazonaws.com' },
        Action: 'sqs:SendMessage',
        Condition: { ArnEquals: { 'aws:SourceArn': { Ref: expect.stringMatching(/^EmailEventsTopic/) } } },
      }),
    );
  });
});
