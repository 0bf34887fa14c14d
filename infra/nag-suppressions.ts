/**
 * cdk-nag (AwsSolutions pack) over the app, and the ONE list of its findings the service acknowledges, each with the
 * reason. Findings that were right to fix are fixed in the stacks (API access logs, a scoped execution role per
 * function instead of AWSLambdaBasicExecutionRole, explicit S3 actions instead of `s3:GetObject*`/`s3:List*`/
 * `s3:Abort*`, TLS-only queues and bucket, DLQs); what remains is listed here.
 *
 * An acknowledgement names one rule, and for IAM5 one exact wildcard (`AwsSolutions-IAM5[Resource::…]`), so a new
 * wildcard or a new kind of finding is never covered by an old reason: `npx cdk synth` fails on it and
 * test/infra/nag.test.ts names it.
 */
import { type App, type PolicyValidationPluginReport, type Stack, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { EXPORT_PAGES_PREFIX } from '#shared/catalog/function-spec.ts';
import { FUNCTIONS } from '#shared/catalog/functions.ts';
import type { AreaStack } from './area-stack.ts';
import type { StoreflowStacks } from './deployment.ts';

/** What an acknowledgement is attached to: the stacks of one deployment. */
export type NagScope = StoreflowStacks;

/**
 * A resource ARN as cdk-nag names it in an IAM5 finding (mirrors its flattening of intrinsics): `Fn::GetAtt` as
 * `<Id.Attr>`, `Ref` as `<Name>`, `Fn::ImportValue` as the export's name, joins concatenated. Resolved in the stack of
 * the policy, at the time of the check: before synthesis a cross-stack ARN is a `Fn::GetAtt` of the other stack's
 * resource, during `cdk synth` an import of its export, so the id can only be computed when the checks run.
 */
const findingOf = (stack: Stack, arn: string): string => {
  const flatten = (node: unknown): string => {
    if (node === undefined) return '';
    if (typeof node === 'string') return node.replace(/\$\{/g, '<').replace(/\}/g, '>');
    const o = node as Record<string, unknown>;
    if (o['Fn::Join']) {
      const [delimiter, items] = o['Fn::Join'] as [string, unknown[]];
      return items.map(flatten).join(delimiter);
    }
    if (o['Fn::GetAtt']) {
      const [resource, attribute] = o['Fn::GetAtt'] as [unknown, unknown];
      return `<${flatten(resource)}.${flatten(attribute)}>`;
    }
    if (o['Fn::ImportValue']) return flatten(o['Fn::ImportValue']);
    if (o.Ref) return `<${flatten(o.Ref)}>`;
    return JSON.stringify(node);
  };
  return `AwsSolutions-IAM5[Resource::${flatten(stack.resolve(arn))}]`;
};

/** One acknowledged finding: the rule (with its finding for IAM5), where it applies, and why it is acceptable. */
interface Acknowledged {
  readonly on: IConstruct;
  readonly id: string;
  readonly reason: string;
}

/** Every acknowledged finding of one deployment. Exported for the test, which checks each still matches something. */
export const acknowledgedFindings = ({ stateful, areas }: NagScope): Acknowledged[] => {
  const apiReason =
    'No API Gateway authorizer by design (architecture §3): each route is its own Lambda that authenticates the ' +
    'store API key (x-service-access-token) itself, with a per-store rate limit, so that errors keep the ' +
    "spec's shapes; public routes (unsubscribe links, OAuth callback) are public on purpose.";
  return [
    {
      on: stateful.importsBucket,
      id: 'AwsSolutions-S1',
      reason:
        'No server access logs on the imports bucket: it is private (all public access blocked), TLS-only, written ' +
        'only through upload URLs the API signs for one job, and every object expires after 7 days. The requests ' +
        'that lead to each upload are in the API access logs and the job record; a log bucket would be a second ' +
        'bucket to secure for little more.',
    },
    {
      on: stateful.masterKey,
      id: 'AwsSolutions-SMG4',
      reason:
        'The master key encrypts every stored store API key; rotating it means re-encrypting them all (sealed keys ' +
        'carry a version, v1., for that), a planned operation, not an automatic Secrets Manager rotation that would ' +
        'make every stored key unreadable.',
    },
    ...Object.values(areas).flatMap((area) => areaFindings(area, apiReason)),
  ];
};

/** The acknowledgements of one area stack: its routes, and the wildcards of the grants its functions declare. */
const areaFindings = (area: AreaStack, apiReason: string): Acknowledged[] => {
  const uses = FUNCTIONS.filter((f) => f.area === area.area).map((f) => f.uses);
  const { partition, region, account } = area;
  const findings: Acknowledged[] = [];
  if (FUNCTIONS.some((f) => f.area === area.area && f.kind === 'http')) {
    findings.push({ on: area, id: 'AwsSolutions-APIG4', reason: apiReason });
  }
  if (uses.some((u) => u.table)) {
    findings.push({
      on: area,
      id: findingOf(area, `${area.refs.table.tableArn}/index/*`),
      reason:
        'Functions that read or write the table may query its global secondary indexes (gsi1, gsi2, generic keys): ' +
        'index/* is the indexes of this one table, no other resource.',
    });
  }
  if (uses.some((u) => u.importsBucket)) {
    findings.push({
      on: area,
      id: findingOf(area, area.refs.importsBucket.arnForObjects('*')),
      reason:
        'Import files are objects of the dedicated imports bucket named per store and job at run time: object-level ' +
        'actions (PutObject, GetObject only) need the bucket/* ARN.',
    });
  }
  if (uses.some((u) => u.exportPages)) {
    findings.push({
      on: area,
      id: findingOf(area, area.refs.importsBucket.arnForObjects(`${EXPORT_PAGES_PREFIX}*`)),
      reason:
        'Oversized export pages are objects named per store and request at run time under export-pages/ of the ' +
        'imports bucket: PutObject and GetObject on that prefix only.',
    });
  }
  if (uses.some((u) => u.scheduler)) {
    findings.push({
      on: area,
      id: findingOf(area, `arn:${partition}:scheduler:${region}:${account}:schedule/${area.refs.scheduleGroupName}/*`),
      reason:
        "Timers are one-time schedules named per timer at run time: Create/UpdateSchedule on the stage's own " +
        'schedule group only.',
    });
  }
  if (uses.some((u) => u.mailer || u.sesIdentities)) {
    findings.push({
      on: area,
      id: findingOf(area, `arn:${partition}:ses:${region}:${account}:identity/*`),
      reason:
        'Stores register their own sending domains at run time (POST /api/v1/senders), so the identities cannot be ' +
        'named in the template: identity/* is the SES identities of this account and region only; sends are also ' +
        "pinned to the stage's configuration set, and the service checks the domain belongs to the calling store.",
    });
  }
  return findings;
};

/**
 * The AwsSolutions checks, recording the acknowledgements of the given deployments right before they run (see
 * {@link findingOf} for why not earlier).
 */
export class StoreflowNagChecks extends AwsSolutionsChecks {
  readonly #deployments: readonly NagScope[];

  constructor(app: App, deployments: readonly NagScope[]) {
    super(app);
    this.#deployments = deployments;
  }

  override validateScope(scope: IConstruct): PolicyValidationPluginReport {
    for (const deployment of this.#deployments) {
      for (const { on, id, reason } of acknowledgedFindings(deployment)) Validations.of(on).acknowledge({ id, reason });
    }
    return super.validateScope(scope);
  }
}

/**
 * Registers the checks as a validation plugin of the app: `cdk synth` (and any `app.synth()`) then reports every
 * unacknowledged finding and fails (exit code 1, "Validation failed", no cloud assembly) when there is one.
 */
export const addNagChecks = (app: App, deployments: readonly NagScope[]): void => {
  Validations.of(app).addPlugins(new StoreflowNagChecks(app, deployments));
};
