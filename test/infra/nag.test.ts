/**
 * cdk-nag (AwsSolutions) over the synthesized stacks of every stage, exactly as `npx cdk synth` runs it: the checks are
 * the app's validation plugin (infra/nag-suppressions.ts), so a synth with an unacknowledged finding fails. A failure
 * here names each finding (rule, finding, construct path): fix it in the CDK code, or acknowledge it with a specific
 * reason in infra/nag-suppressions.ts.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '#infra/app.ts';
import type { StoreflowStacks } from '#infra/deployment.ts';
import { acknowledgedFindings, addNagChecks } from '#infra/nag-suppressions.ts';
import { HOSTS } from '#shared/catalog/hosts.ts';
import { STAGES } from '#shared/catalog/stage.ts';

interface Violation {
  readonly ruleName: string;
  readonly description: string;
  readonly severity: string;
  readonly violatingConstructs: { readonly constructPath: string }[];
}

const outdirs: string[] = [];
afterAll(() => {
  for (const dir of outdirs) rmSync(dir, { recursive: true, force: true });
});

/** An app of one stage with bundling off (see stacks.test.ts) and an outdir of its own for the validation report. */
const appOf = (stage: string, extra?: (stacks: StoreflowStacks) => void) => {
  const outdir = mkdtempSync(join(tmpdir(), 'storeflow-nag-'));
  outdirs.push(outdir);
  const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [] } });
  const stacks = buildApp(app, stage);
  extra?.(stacks);
  return { app, stacks, outdir };
};

/** Synthesizes with the nag plugin, as the CDK CLI does; the unacknowledged findings (none when the synth passes). */
const synthWithNag = (stage: string, extra?: (stacks: StoreflowStacks) => void): Violation[] => {
  const { app, stacks, outdir } = appOf(stage, extra);
  addNagChecks(app, [stacks]);
  try {
    app.synth();
    return [];
  } catch (error) {
    // A failed validation leaves its report in the outdir (and says so in the error); anything else is rethrown.
    if (!existsSync(join(outdir, 'validation-report.json'))) throw error;
    const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8')) as {
      pluginReports: { violations: Violation[] }[];
    };
    const violations = report.pluginReports.flatMap((r) => r.violations);
    if (violations.length === 0) throw error;
    return violations;
  }
};

/** One line per finding and construct, so the failure message says what to fix or acknowledge. */
const describeFindings = (violations: readonly Violation[]): string[] =>
  violations.flatMap((v) =>
    v.violatingConstructs.map((c) => `${v.severity} ${v.ruleName} at ${c.constructPath}: ${v.description}`),
  );

describe.each(STAGES)('cdk-nag AwsSolutions on the %s stage', (stage) => {
  it('synthesizes with no unacknowledged finding (errors and warnings alike)', () => {
    expect(describeFindings(synthWithNag(stage))).toEqual([]);
  });

  it('acknowledges nothing that no longer occurs: each acknowledgement matches a finding of the raw checks', () => {
    // The raw pack, without the acknowledgements, on the construct tree (before synthesis, where the acknowledged ids
    // are computed the same way): every acknowledged id must still be reported somewhere under its construct.
    const { app, stacks } = appOf(stage);
    const raw = new AwsSolutionsChecks().validateScope(app).violations as unknown as {
      ruleName: string;
      violatingResources: { constructPath?: string }[];
    }[];
    for (const { on, id, reason } of acknowledgedFindings(stacks)) {
      expect(reason.length, id).toBeGreaterThan(40);
      const under = raw
        .filter((v) => v.ruleName === id)
        .flatMap((v) => v.violatingResources.map((r) => r.constructPath ?? ''))
        .filter((path) => path === on.node.path || path.startsWith(`${on.node.path}/`));
      expect(under, `acknowledged ${id} on ${on.node.path}, which has no such finding`).not.toEqual([]);
    }
  });
});

describe('cdk-nag in the synth', () => {
  it('names a new finding and its construct, so a resource added without care fails the synth', () => {
    const violations = synthWithNag('prod', (stacks) => {
      // A queue without TLS enforcement and without a DLQ: what a new resource added carelessly would look like.
      new Queue(stacks.areas.flows, 'CarelessQueue');
    });
    const findings = describeFindings(violations);
    expect(findings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^error AwsSolutions-SQS3 at Storeflow-prod-Flows\/CarelessQueue\/Resource: /),
        expect.stringMatching(/^error AwsSolutions-SQS4 at Storeflow-prod-Flows\/CarelessQueue\/Resource: /),
      ]),
    );
    // Only the new queue: the acknowledgements still hold for everything else.
    expect(violations.flatMap((v) => v.violatingConstructs.map((c) => c.constructPath.split('/')[1]))).toEqual(
      violations.flatMap((v) => v.violatingConstructs.map(() => 'CarelessQueue')),
    );
  });
});

describe('findings fixed in the stacks (not acknowledged)', () => {
  const { stacks } = appOf('prod');
  const edge = Template.fromStack(stacks.edge as Stack);
  const areas = Object.values(stacks.areas).map((stack) => ({ stack, template: Template.fromStack(stack) }));

  it('logs API access (APIG1) of every host as JSON with the route key, never the path (it carries tokens)', () => {
    const stages = edge.findResources('AWS::ApiGatewayV2::Stage');
    expect(Object.keys(stages)).toHaveLength(HOSTS.length);
    for (const stage of Object.values(stages) as { Properties: { AccessLogSettings: { Format: string } } }[]) {
      const format = JSON.parse(stage.Properties.AccessLogSettings.Format) as Record<string, string>;
      expect(format).toMatchObject({ requestId: '$context.requestId', route: '$context.routeKey' });
      expect(Object.values(format)).not.toContain('$context.path');
    }
    edge.allResourcesProperties('AWS::ApiGatewayV2::Stage', {
      AccessLogSettings: { DestinationArn: { 'Fn::GetAtt': [Match.anyValue(), 'Arn'] } },
    });
  });

  it('gives each function its own role with no AWS managed policy (IAM4), writing only its own log group', () => {
    for (const { stack, template } of areas) {
      template.allResourcesProperties('AWS::IAM::Role', { ManagedPolicyArns: Match.absent() });
      for (const fn of stack.functions.values()) {
        const roleId = stack.getLogicalId(fn.role.node.defaultChild as never);
        const logsId = stack.getLogicalId(fn.logGroup.node.defaultChild as never);
        template.hasResourceProperties('AWS::IAM::Policy', {
          Roles: [{ Ref: roleId }],
          PolicyDocument: {
            Statement: Match.arrayWith([
              {
                Effect: 'Allow',
                Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
                Resource: { 'Fn::GetAtt': [logsId, 'Arn'] },
              },
            ]),
          },
        });
      }
    }
  });

  it('grants the imports bucket with explicit actions, no s3 wildcard action (IAM5)', () => {
    const policies = areas.flatMap(({ template }) => Object.values(template.findResources('AWS::IAM::Policy')));
    const actions = policies.flatMap((p) =>
      (
        p as { Properties: { PolicyDocument: { Statement: { Action: string | string[] }[] } } }
      ).Properties.PolicyDocument.Statement.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action])),
    );
    const s3 = [...new Set(actions.filter((a) => a.startsWith('s3:')))].sort();
    expect(s3).toEqual(['s3:GetObject', 's3:ListBucket', 's3:PutObject']);
  });
});
