/**
 * The CDK app: `npx cdk synth|deploy [-c stage=dev|test|prod]`. The stage (default `prod`, from cdk.json) names the
 * stacks, so several deployments live side by side in one account; `test` is the deployment whose front API serves the
 * spec's `{front_test_url}`.
 */
import { App, type Environment, Tags } from 'aws-cdk-lib';
import { parseStage } from '#shared/catalog/stage.ts';
import { addNagChecks } from './nag-suppressions.ts';
import { ServiceStack } from './service-stack.ts';
import { StatefulStack } from './stateful-stack.ts';

/** The two stacks of one deployment. */
export interface StoreflowStacks {
  readonly stateful: StatefulStack;
  readonly service: ServiceStack;
}

const contextText = (app: App, key: string): string | undefined => {
  const value: unknown = app.node.tryGetContext(key);
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
};

/**
 * What an operator may set per deployment with `-c key=value` (see docs/deploy.md): `alarmEmail`, and custom domains
 * `certificateArn` with any of `mainDomain`, `frontDomain`, `sendingDomain`.
 */
const operatorOptions = (app: App) => {
  const alarmEmail = contextText(app, 'alarmEmail');
  const certificateArn = contextText(app, 'certificateArn');
  const domains = {
    main: contextText(app, 'mainDomain'),
    front: contextText(app, 'frontDomain'),
    sending: contextText(app, 'sendingDomain'),
  };
  const named = Object.entries(domains).filter((entry): entry is [string, string] => entry[1] !== undefined);
  if (named.length > 0 && !certificateArn)
    throw new Error('Custom domains need -c certificateArn=<ACM certificate ARN>');
  return {
    ...(alarmEmail ? { alarmEmail } : {}),
    ...(certificateArn && named.length > 0 ? { customDomains: { certificateArn, ...Object.fromEntries(named) } } : {}),
  };
};

/**
 * Adds one deployment's stacks (`Storeflow-<stage>-Stateful`, `Storeflow-<stage>-Service`) to `app`. Tests call it with
 * an app whose context switches bundling off.
 */
export const buildApp = (app: App, stageName: unknown): StoreflowStacks => {
  const stage = parseStage(stageName);
  // Pinned to the CLI's account/region when known (enables lookups and literal ARNs); environment-agnostic otherwise.
  const account = process.env.CDK_DEFAULT_ACCOUNT;
  const region = process.env.CDK_DEFAULT_REGION;
  const env: Environment = { ...(account ? { account } : {}), ...(region ? { region } : {}) };
  const prefix = `Storeflow-${stage}`;

  const stateful = new StatefulStack(app, `${prefix}-Stateful`, {
    env,
    stage,
    description: `Storeflow ${stage}: data (table, imports bucket, master key)`,
  });
  const service = new ServiceStack(app, `${prefix}-Service`, {
    env,
    stage,
    ...operatorOptions(app),
    description: `Storeflow ${stage}: APIs, queues and functions`,
    table: stateful.table,
    importsBucket: stateful.importsBucket,
    masterKey: stateful.masterKey,
  });

  for (const stack of [stateful, service]) {
    Tags.of(stack).add('service', 'storeflow');
    Tags.of(stack).add('stage', stage);
  }
  return { stateful, service };
};

// Run by the CDK CLI (`node infra/app.ts`); importing this module (the tests do) builds nothing.
if (import.meta.main) {
  const app = new App();
  // cdk-nag runs in every synth; the findings it accepts, with their reasons, are in nag-suppressions.ts.
  addNagChecks(app, [buildApp(app, app.node.tryGetContext('stage'))]);
}
