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
import { type Synthesized, synth } from './synth.ts';

const DOMAINS = {
  certificateArn: 'arn:aws:acm:us-east-1:111111111111:certificate/abc',
  mainDomain: 'api.shop.example',
  alarmEmail: 'ops@shop.example',
};
const first = synth('prod', DOMAINS);
const second = synth('prod', DOMAINS);

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
    expect(deletable(synth('test'))).toEqual([]);
  });

  it('live in termination-protected stacks outside dev; the area stacks hold none of them', () => {
    const s = first.stacks;
    for (const stack of [s.stateful, s.edge, s.ops]) expect(stack.terminationProtection, stack.stackName).toBe(true);
    for (const template of Object.values(first.areas)) {
      for (const type of DURABLE_TYPES) template.resourceCountIs(type, 0);
    }
  });
});
