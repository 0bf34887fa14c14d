/**
 * The CDK app: `npx cdk synth|deploy [-c stage=dev|test|prod]`. The stage (default `prod`, from cdk.json) names the
 * stacks, so several deployments live side by side in one account; `test` is the deployment whose front API serves the
 * spec's `{front_test_url}`.
 */
import { App, type Environment, Tags } from 'aws-cdk-lib';
import { AREAS, type Area } from '#shared/catalog/function-spec.ts';
import { OPERATOR_SETTINGS, type OperatorSetting, type OperatorSettingName } from '#shared/catalog/settings.ts';
import { parseStage } from '#shared/catalog/stage.ts';
import { AreaStack } from './area-stack.ts';
import type { OperatorSettingValues } from './constructs/catalog-functions.ts';
import { pascalCase } from './constructs/names.ts';
import { allStacks, type StoreflowStacks } from './deployment.ts';
import { EdgeStack } from './edge-stack.ts';
import { addNagChecks } from './nag-suppressions.ts';
import { OpsStack } from './ops-stack.ts';
import { DEFAULT_TABLE_LIMITS, readStageFile, type StageSettings } from './stage-file.ts';
import { StatefulStack } from './stateful-stack.ts';

const contextText = (app: App, key: string): string | undefined => {
  const value: unknown = app.node.tryGetContext(key);
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
};

/**
 * The deployment's alarm email and custom domains: the stage file's (`infra/stages/<stage>.json`, stage-file.ts), with
 * `-c alarmEmail=`, `-c certificateArn=` and `-c mainDomain=|frontDomain=|sendingDomain=` over them for a one-off
 * try (see docs/deploy.md).
 */
const operatorOptions = (app: App, file: StageSettings) => {
  const alarmEmail = contextText(app, 'alarmEmail') ?? file.alarmEmail;
  const fromContext = {
    main: contextText(app, 'mainDomain'),
    front: contextText(app, 'frontDomain'),
    sending: contextText(app, 'sendingDomain'),
  };
  const named = Object.entries(fromContext).filter((entry): entry is [string, string] => entry[1] !== undefined);
  const certificateArn = contextText(app, 'certificateArn') ?? file.customDomains?.certificateArn;
  if (named.length > 0 && !certificateArn)
    throw new Error('Custom domains need -c certificateArn=<ACM certificate ARN> (or customDomains in the stage file)');
  const customDomains =
    certificateArn && named.length > 0
      ? { ...file.customDomains, certificateArn, ...Object.fromEntries(named) }
      : file.customDomains;
  return {
    ...(alarmEmail ? { alarmEmail } : {}),
    ...(customDomains ? { customDomains } : {}),
  };
};

/**
 * The operator settings given as context (`-c sesSendRatePerSecond=50`, see shared/catalog/settings.ts): whole numbers
 * within each setting's bounds, or the synth fails naming the setting. Unset ones keep their default.
 */
export const operatorSettings = (app: App, file: OperatorSettingValues = {}): OperatorSettingValues => {
  const values: Partial<Record<OperatorSettingName, number>> = { ...file };
  for (const [name, setting] of Object.entries(OPERATOR_SETTINGS) as [OperatorSettingName, OperatorSetting][]) {
    const text = contextText(app, name);
    if (text === undefined) continue;
    const value = Number(text);
    if (!Number.isInteger(value) || value < setting.min || value > setting.max) {
      throw new Error(`-c ${name}=${text}: must be a whole number from ${setting.min} to ${setting.max}`);
    }
    values[name] = value;
  }
  return values;
};

/**
 * Adds one deployment's stacks to `app`, set up as its stage file says (`stageFile` stands in for it in tests): `Storeflow-<stage>-Stateful`, `-Edge`, one `-<Area>` per catalog area, and
 * `-Ops`. They reference each other weakly (constructs/references.ts), so the order CloudFormation needs is declared
 * here. Tests call it with an app whose context switches bundling off.
 */
export const buildApp = (app: App, stageName: unknown, stageFile?: StageSettings): StoreflowStacks => {
  const stage = parseStage(stageName);
  const file = stageFile ?? readStageFile(stage);
  // Pinned to the CLI's account/region when known (enables lookups and literal ARNs); environment-agnostic otherwise.
  const account = process.env.CDK_DEFAULT_ACCOUNT;
  const region = process.env.CDK_DEFAULT_REGION;
  const env: Environment = { ...(account ? { account } : {}), ...(region ? { region } : {}) };
  const prefix = `Storeflow-${stage}`;
  const options = operatorOptions(app, file);
  const settings = operatorSettings(app, file.settings);

  const stateful = new StatefulStack(app, `${prefix}-Stateful`, {
    env,
    stage,
    tableLimits: file.table ?? DEFAULT_TABLE_LIMITS,
    description: `Storeflow ${stage}: data and pending work (table, bucket, master key, queues, timers, SES events)`,
  });
  const edge = new EdgeStack(app, `${prefix}-Edge`, {
    env,
    stage,
    ...(options.customDomains ? { customDomains: options.customDomains } : {}),
    description: `Storeflow ${stage}: the HTTP APIs of the three hosts`,
  });
  const areas = Object.fromEntries(
    AREAS.map((area) => {
      const stack = new AreaStack(app, `${prefix}-${pascalCase(area)}`, {
        env,
        stage,
        area,
        settings,
        description: `Storeflow ${stage}: the ${area} functions, their routes and queue consumers`,
      });
      stack.addStackDependency(stateful, 'reads the table, queues and timers by name and SSM parameter');
      stack.addStackDependency(edge, 'adds its routes to the host APIs');
      return [area, stack];
    }),
  ) as Record<Area, AreaStack>;
  const ops = new OpsStack(app, `${prefix}-Ops`, {
    env,
    stage,
    ...(options.alarmEmail ? { alarmEmail: options.alarmEmail } : {}),
    description: `Storeflow ${stage}: alarms and dashboard`,
  });
  for (const stack of [stateful, edge, ...Object.values(areas)])
    ops.addStackDependency(stack, 'alarms on its resources');

  const stacks = { stateful, edge, areas, ops };
  for (const stack of allStacks(stacks)) {
    Tags.of(stack).add('service', 'storeflow');
    Tags.of(stack).add('stage', stage);
  }
  return stacks;
};

// Run by the CDK CLI (`node infra/app.ts`); importing this module (the tests do) builds nothing.
if (import.meta.main) {
  const app = new App();
  // cdk-nag runs in every synth; the findings it accepts, with their reasons, are in nag-suppressions.ts.
  addNagChecks(app, [buildApp(app, app.node.tryGetContext('stage'))]);
}
