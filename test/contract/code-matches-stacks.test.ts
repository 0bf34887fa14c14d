/**
 * Code that matches its stacks: what every catalog function did while `npm test` ran on the local runtime
 * (recorded by local/contract-recorder.ts into `.local/contract/`) compared with what its synthesized role and
 * environment allow. A deployment fails where they disagree (an action the role does not allow, a variable not set),
 * and none of it shows on the local runtime, which enforces no IAM: this is where it shows. A function the suite never
 * ran is a failure too, named. Run after the suite by `npm test` (vitest.contract.config.ts).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTRACT_DIR_ENV, type FunctionFacts } from '#local/contract-recorder.ts';
import { FUNCTIONS } from '#shared/catalog/functions.ts';
import { QUEUES, type QueueName } from '#shared/catalog/queues.ts';
import { ENV } from '#shared/config.ts';
import { envOf, statementsOf, synth } from '#test/infra/synth.ts';

const DIR = resolve(process.env[CONTRACT_DIR_ENV] ?? '.local/contract');

/** Every process's recording, merged per function. */
const recorded = (): Map<string, FunctionFacts> => {
  const merged = new Map<string, FunctionFacts>();
  if (!existsSync(DIR)) return merged;
  for (const file of readdirSync(DIR).filter((name) => name.endsWith('.json'))) {
    const facts = JSON.parse(readFileSync(join(DIR, file), 'utf8')) as Record<string, FunctionFacts>;
    for (const [name, seen] of Object.entries(facts)) {
      const into = merged.get(name) ?? { invocations: 0, calls: [], writeKeys: [], queues: [], settings: [] };
      merged.set(name, {
        invocations: into.invocations + seen.invocations,
        calls: [...new Set([...into.calls, ...seen.calls])],
        writeKeys: [...new Set([...into.writeKeys, ...seen.writeKeys])],
        queues: [...new Set([...into.queues, ...seen.queues])],
        settings: [...new Set([...into.settings, ...seen.settings])],
      });
    }
  }
  return merged;
};

/** The IAM service prefix of each SDK client. */
const PREFIX: Readonly<Record<string, string>> = {
  DynamoDBClient: 'dynamodb',
  SQSClient: 'sqs',
  SESv2Client: 'ses',
  SchedulerClient: 'scheduler',
  S3Client: 's3',
  SecretsManagerClient: 'secretsmanager',
};

/** API calls whose IAM action has another name. */
const ACTION_OF_CALL: Readonly<Record<string, string>> = {
  'sqs:SendMessageBatch': 'sqs:SendMessage',
  'sqs:ChangeMessageVisibilityBatch': 'sqs:ChangeMessageVisibility',
  'sqs:DeleteMessageBatch': 'sqs:DeleteMessage',
  's3:HeadObject': 's3:GetObject',
  's3:ListObjectsV2': 's3:ListBucket',
};

/**
 * Settings read with a default the stacks deliberately leave alone: the webhook retry base is the spec's schedule, and
 * the other two exist for the local runtime only.
 */
const DEFAULTED_SETTINGS = new Set(['webhookBackoffBaseSeconds', 'webhookAllowPrivateUrls', 's3ForcePathStyle']);

const actionOf = (call: string): string => {
  const [client = '', command = ''] = call.split(':');
  const action = `${PREFIX[client] ?? client}:${command}`;
  return ACTION_OF_CALL[action] ?? action;
};

const grants = (pattern: string, action: string) =>
  new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`, 'i').test(action);

/** `storeflow-emailEvents` (the local queue name) → `emailEvents`. */
const catalogQueue = (localName: string): string => localName.replace(/^storeflow-/, '').replace(/-dlq$/, '');

const prod = synth('prod');
const facts = recorded();

describe('every catalog function ran in the suite', () => {
  it('has a recording for each function (run `npm test` whole: the recordings come from it)', () => {
    const never = FUNCTIONS.filter((spec) => (facts.get(spec.name)?.invocations ?? 0) === 0).map((spec) => spec.name);
    expect(never, `functions the suite never invoked on the local runtime (recordings in ${DIR})`).toEqual([]);
  });
});

describe.each(FUNCTIONS.map((spec) => [spec.name, spec] as const))('%s', (name, spec) => {
  const seen = facts.get(name);
  const statements = statementsOf(prod, name);
  const allowed = (action: string, condition?: (st: { Condition?: unknown }) => boolean) =>
    statements.some(
      (st) =>
        st.Effect === 'Allow' &&
        [st.Action].flat().some((pattern) => grants(pattern, action)) &&
        (condition ? condition(st) : true),
    );

  it('calls only what its role allows', () => {
    const denied = (seen?.calls ?? []).map(actionOf).filter((action) => !allowed(action));
    expect(denied, `${name} calls these, its role does not allow them`).toEqual([]);
  });

  it('writes only the table keys its role allows (leading-key conditions)', () => {
    const outside: string[] = [];
    for (const write of seen?.writeKeys ?? []) {
      const [command = '', prefix = ''] = write.split(' ');
      const action = `dynamodb:${command}`;
      if (allowed(action, (st) => st.Condition === undefined)) continue;
      const leading = statements
        .filter((st) => [st.Action].flat().some((pattern) => grants(pattern, action)))
        .flatMap((st) => {
          const condition = st.Condition as Record<string, Record<string, string[]>> | undefined;
          return condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] ?? [];
        });
      if (!leading.some((pattern) => grants(pattern, `${prefix}x`))) outside.push(write);
    }
    expect(outside, `${name} writes these keys, its role's conditions do not cover them`).toEqual([]);
  });

  it('sends only to the queues it declares, and changes visibility only on the queue it consumes', () => {
    const stray: string[] = [];
    for (const use of seen?.queues ?? []) {
      const [command = '', local = ''] = use.split(' ');
      const queue = catalogQueue(local) as QueueName;
      if (!(queue in QUEUES)) continue;
      const sends = command.startsWith('SendMessage') && (spec.uses.sendTo ?? []).includes(queue);
      const consumes = spec.kind === 'queue' && spec.queue === queue && !command.startsWith('SendMessage');
      if (!sends && !consumes) stray.push(use);
    }
    expect(stray, `${name} uses these queues without declaring them`).toEqual([]);
  });

  it('finds every setting it reads in its environment', () => {
    const env = envOf(prod, name);
    const missing = (seen?.settings ?? [])
      .filter((key) => !DEFAULTED_SETTINGS.has(key))
      .map((key) => ENV[key as keyof typeof ENV] ?? key)
      .filter((variable) => !(variable in env));
    expect(missing, `${name} reads these, its deployed environment does not set them`).toEqual([]);
  });
});
