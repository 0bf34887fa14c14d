/**
 * A stage's settings in a committed file, `infra/stages/<stage>.json`: what a deploy sets up besides the code (the
 * alarm email, custom domains) and the operator settings. A deploy reads the file, so deploying again with the same
 * file changes nothing, and a plain `cdk deploy --all` never removes what an earlier deploy made because a `-c` flag was
 * left out. `alarmEmail` and `customDomains` must be stated (`null`: none, deliberately), so removing a domain is an
 * edit to the file, seen in review. `-c` flags still override the file, for one-off tries.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import * as v from 'valibot';
import { OPERATOR_SETTINGS, type OperatorSettingName } from '#shared/catalog/settings.ts';
import type { Stage } from '#shared/catalog/stage.ts';
import type { OperatorSettingValues } from './constructs/catalog-functions.ts';
import type { CustomDomainsConfig } from './constructs/custom-domains.ts';

const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const domain = v.pipe(v.string(), v.regex(DOMAIN, 'must be a domain name such as api.shop.example'));

const settingsSchema = v.strictObject(
  Object.fromEntries(
    (Object.entries(OPERATOR_SETTINGS) as [OperatorSettingName, (typeof OPERATOR_SETTINGS)[OperatorSettingName]][]).map(
      ([name, setting]) => [
        name,
        v.optional(
          v.pipe(
            v.number(),
            v.integer(`must be a whole number from ${setting.min} to ${setting.max}`),
            v.minValue(setting.min, `must be a whole number from ${setting.min} to ${setting.max}`),
            v.maxValue(setting.max, `must be a whole number from ${setting.min} to ${setting.max}`),
          ),
        ),
      ],
    ),
  ) as unknown as Record<OperatorSettingName, v.OptionalSchema<v.GenericSchema<number>, undefined>>,
);

export const StageFile = v.strictObject({
  alarmEmail: v.nullable(v.pipe(v.string(), v.email('must be an email address, or null for none'))),
  customDomains: v.nullable(
    v.pipe(
      v.strictObject({
        certificateArn: v.pipe(v.string(), v.regex(/^arn:aws[a-z-]*:acm:/, 'must be an ACM certificate ARN')),
        main: v.optional(domain),
        front: v.optional(domain),
        sending: v.optional(domain),
      }),
      v.check((d) => Boolean(d.main || d.front || d.sending), 'must name at least one of main, front, sending'),
    ),
  ),
  settings: settingsSchema,
  /** The table's maximum on-demand throughput (request units per second): a runaway load or bill stops there. */
  table: v.optional(
    v.strictObject({
      maxReadRequestUnits: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(400_000)),
      maxWriteRequestUnits: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(400_000)),
    }),
  ),
});
export type StageFile = v.InferOutput<typeof StageFile>;

/** What a deploy of the stage sets up, from its file (and the `-c` overrides `buildApp` applies on top). */
export interface StageSettings {
  readonly alarmEmail?: string;
  readonly customDomains?: CustomDomainsConfig;
  readonly settings: OperatorSettingValues;
  readonly table?: TableLimits;
}

/** The table's maximum on-demand throughput. */
export interface TableLimits {
  readonly maxReadRequestUnits: number;
  readonly maxWriteRequestUnits: number;
}

/** Without a `table` entry in the stage file: ten times a new on-demand table's initial write throughput. */
export const DEFAULT_TABLE_LIMITS: TableLimits = { maxReadRequestUnits: 40_000, maxWriteRequestUnits: 40_000 };

/** Checks a stage file's content: a wrong or missing field fails the synth naming it and the file. */
export const parseStageFile = (content: unknown, where: string): StageSettings => {
  const parsed = v.safeParse(StageFile, content);
  if (!parsed.success) {
    const problems = parsed.issues.map((issue) => {
      const path = issue.path?.map((p) => String(p.key)).join('.') ?? '(the file)';
      const missing = issue.received === 'undefined' && issue.path !== undefined;
      return missing ? `${path} is required (null for none)` : `${path} ${issue.message}`;
    });
    throw new Error(`${where}: ${problems.join('; ')}`);
  }
  const { alarmEmail, customDomains, settings, table } = parsed.output;
  const defined = <T extends object>(record: T) =>
    Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));
  return {
    ...(alarmEmail ? { alarmEmail } : {}),
    ...(customDomains ? { customDomains: defined(customDomains) as unknown as CustomDomainsConfig } : {}),
    settings: defined(settings) as OperatorSettingValues,
    ...(table ? { table } : {}),
  };
};

export const stageFilePath = (stage: Stage) => resolve(import.meta.dirname, 'stages', `${stage}.json`);

/** Reads `infra/stages/<stage>.json`; a stage without its file fails the synth, saying how to make one. */
export const readStageFile = (stage: Stage): StageSettings => {
  const path = stageFilePath(stage);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new Error(`${path} is missing: every stage has its settings file (copy infra/stages/prod.json)`);
  }
  let content: unknown;
  try {
    content = JSON.parse(text);
  } catch (error) {
    throw new Error(`${path} is not JSON: ${(error as Error).message}`);
  }
  return parseStageFile(content, path);
};
