import type { Stack } from 'aws-cdk-lib';
import type { Area } from '#shared/catalog/function-spec.ts';
import type { AreaStack } from './area-stack.ts';
import type { EdgeStack } from './edge-stack.ts';
import type { OpsStack } from './ops-stack.ts';
import type { StatefulStack } from './stateful-stack.ts';

/** The stacks of one deployment (docs/deploy.md): data and pending work, the hosts, one per area, and operations. */
export interface StoreflowStacks {
  readonly stateful: StatefulStack;
  readonly edge: EdgeStack;
  readonly areas: Readonly<Record<Area, AreaStack>>;
  readonly ops: OpsStack;
}

/** Every stack of a deployment, in deploy order. */
export const allStacks = (stacks: StoreflowStacks): Stack[] => [
  stacks.stateful,
  stacks.edge,
  ...Object.values(stacks.areas),
  stacks.ops,
];
