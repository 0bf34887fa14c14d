/**
 * The names a deployed release fixes for the next one (`infra/stages/release-names.json`, recorded from stage prod):
 * its stack names, each stack's outputs and exports, and the physical names of what it creates (functions, queues,
 * dashboard, schedule group, configuration set, SSM parameters). A later release may add to them; dropping or renaming
 * one would fail an in-place upgrade (an export still imported) or orphan a resource, so the test compares against it.
 */
import type { Synthesized } from './synth.ts';

const NAME_PROPERTIES = ['QueueName', 'DashboardName', 'Name', 'FunctionName', 'ConfigurationSetName'];

export const releaseNames = (s: Synthesized) => ({
  stacks: s.all.map(({ stack }) => stack.stackName),
  outputs: Object.fromEntries(
    s.all.map(({ stack, template }) => [stack.stackName, Object.keys(template.toJSON().Outputs ?? {}).sort()]),
  ),
  exports: s.all
    .flatMap(({ template }) =>
      Object.values((template.toJSON().Outputs ?? {}) as Record<string, { Export?: { Name?: unknown } }>).map((o) =>
        o.Export?.Name === undefined ? undefined : JSON.stringify(o.Export.Name),
      ),
    )
    .filter((name): name is string => name !== undefined)
    .sort(),
  physicalNames: s.all
    .flatMap(({ template }) =>
      Object.values((template.toJSON().Resources ?? {}) as Record<string, { Properties?: Record<string, unknown> }>)
        .flatMap((r) => NAME_PROPERTIES.map((key) => r.Properties?.[key]))
        .filter((name): name is string => typeof name === 'string'),
    )
    .sort(),
});
