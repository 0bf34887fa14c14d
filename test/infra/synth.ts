/**
 * The stacks of one stage synthesized for assertions (bundling off: an empty bundling-stacks list is what `cdk ls`
 * uses, so NodejsFunction skips esbuild and a synth takes seconds), and lookups across them: the template of a
 * function's area, its role's actions, its environment.
 */
import { App, type CfnResource, type Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { expect } from 'vitest';
import { buildApp } from '#infra/app.ts';
import { queueNames } from '#infra/constructs/names.ts';
import type { ServiceFunction } from '#infra/constructs/service-function.ts';
import { allStacks, type StoreflowStacks } from '#infra/deployment.ts';
import { parseStageFile } from '#infra/stage-file.ts';
import { AREAS, type Area, type FunctionSpec } from '#shared/catalog/function-spec.ts';
import { FUNCTIONS } from '#shared/catalog/functions.ts';
import { QUEUES, type QueueName } from '#shared/catalog/queues.ts';
import type { Stage } from '#shared/catalog/stage.ts';

export interface Synthesized {
  readonly stage: Stage;
  readonly stacks: StoreflowStacks;
  readonly stateful: Template;
  readonly edge: Template;
  readonly ops: Template;
  readonly areas: Readonly<Record<Area, Template>>;
  /** Every stack with its template, in deploy order. */
  readonly all: readonly { readonly stack: Stack; readonly template: Template }[];
}

/** The stage's stacks from its committed stage file, or from `stageFile` (the file's content, checked as the file is). */
export const synth = (stage: Stage, context: Record<string, string> = {}, stageFile?: unknown): Synthesized => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } });
  const stacks = buildApp(app, stage, stageFile === undefined ? undefined : parseStageFile(stageFile, 'the test'));
  const areas = Object.fromEntries(AREAS.map((area) => [area, Template.fromStack(stacks.areas[area])])) as Record<
    Area,
    Template
  >;
  return {
    stage,
    stacks,
    stateful: Template.fromStack(stacks.stateful),
    edge: Template.fromStack(stacks.edge),
    ops: Template.fromStack(stacks.ops),
    areas,
    all: allStacks(stacks).map((stack) => ({ stack, template: Template.fromStack(stack) })),
  };
};

export const catalog = FUNCTIONS as readonly FunctionSpec[];

export const logicalId = (stack: Stack, construct: { node: { defaultChild?: unknown } }): string =>
  stack.getLogicalId(construct.node.defaultChild as CfnResource);

/** A catalog function as synthesized: its area stack and template, its construct and the Lambda's logical id. */
export const functionOf = (s: Synthesized, name: string) => {
  const spec = catalog.find((f) => f.name === name);
  if (!spec) throw new Error(`no catalog function ${name}`);
  const stack = s.stacks.areas[spec.area];
  const fn: ServiceFunction | undefined = stack.functions.get(name);
  if (!fn) throw new Error(`no function ${name} in ${stack.stackName}`);
  return { spec, stack, template: s.areas[spec.area], fn, lambdaId: logicalId(stack, fn.lambda) };
};

export interface Statement {
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Effect: string;
  readonly Condition?: unknown;
}

/** Every statement of the policies attached to a function's role. */
export const statementsOf = (s: Synthesized, name: string): Statement[] => {
  const { stack, template, fn } = functionOf(s, name);
  const roleId = logicalId(stack, fn.role);
  const policies = template.findResources('AWS::IAM::Policy', {
    Properties: { Roles: Match.arrayWith([{ Ref: roleId }]) },
  });
  return Object.values(policies).flatMap(
    (p) => (p as { Properties: { PolicyDocument: { Statement: Statement[] } } }).Properties.PolicyDocument.Statement,
  );
};

const actionList = (st: Statement) => (Array.isArray(st.Action) ? st.Action : [st.Action]);

/** Every IAM action granted to a function's role. */
export const actionsOf = (s: Synthesized, name: string): string[] => statementsOf(s, name).flatMap(actionList);

/** The resources of the statements granting `sqs:SendMessage` to a function's role. */
export const sendTargetsOf = (s: Synthesized, name: string): unknown[] =>
  statementsOf(s, name)
    .filter((st) => actionList(st).includes('sqs:SendMessage'))
    .map((st) => st.Resource);

export const envOf = (s: Synthesized, name: string): Record<string, unknown> => {
  const { template, lambdaId } = functionOf(s, name);
  const resource = template.findResources('AWS::Lambda::Function')[lambdaId] as {
    Properties: { Environment: { Variables: Record<string, unknown> } };
  };
  return resource.Properties.Environment.Variables;
};

/** The ARN another stack builds for a catalog queue (or its DLQ) from its name: a join ending in `:<name>`. */
export const queueArn = (stage: Stage, name: QueueName, which: 'queue' | 'dlq' = 'queue') => ({
  'Fn::Join': [
    '',
    [
      'arn:',
      { Ref: 'AWS::Partition' },
      ':sqs:',
      { Ref: 'AWS::Region' },
      ':',
      { Ref: 'AWS::AccountId' },
      `:${queueNames(stage, name, QUEUES[name].fifo)[which]}`,
    ],
  ],
});

/** The logical id of the deploy-time parameter through which a template reads `/storeflow/<stage>/<key>`. */
export const parameterRef = (template: Template, stage: Stage, key: string): { Ref: string } => {
  const parameters = (template.toJSON().Parameters ?? {}) as Record<string, { Type: string; Default?: string }>;
  const found = Object.entries(parameters).find(([, p]) => p.Default === `/storeflow/${stage}/${key}`);
  if (!found) throw new Error(`the template reads no parameter /storeflow/${stage}/${key}`);
  expect(found[1].Type).toBe('AWS::SSM::Parameter::Value<String>');
  return { Ref: found[0] };
};
