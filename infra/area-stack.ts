import { Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { Area } from '#shared/catalog/function-spec.ts';
import type { Stage } from '#shared/catalog/stage.ts';
import { catalogFunctions, type OperatorSettingValues } from './constructs/catalog-functions.ts';
import { StageReferences } from './constructs/references.ts';
import type { ServiceFunction } from './constructs/service-function.ts';

export interface AreaStackProps extends StackProps {
  readonly stage: Stage;
  readonly area: Area;
  /** Operator settings given at deploy; the others keep their defaults. */
  readonly settings?: OperatorSettingValues;
}

/**
 * The functions of one area of the catalog (`shared/catalog/functions.ts`): each Lambda with its role, log group,
 * routes on the hosts' APIs and queue event source. Stateless: destroying it loses no data, message or timer, and the
 * next deploy rebuilds it. Adding a function to an area needs no change here; a new area is a new stack.
 */
export class AreaStack extends Stack {
  readonly area: Area;
  readonly functions: ReadonlyMap<string, ServiceFunction>;
  /** The stage's shared resources as this stack references them (for the nag acknowledgements). */
  readonly refs: StageReferences;

  constructor(scope: Construct, id: string, props: AreaStackProps) {
    super(scope, id, props);
    this.area = props.area;
    this.refs = new StageReferences(this, props.stage);
    this.functions = catalogFunctions(this, props.stage, props.area, this.refs, props.settings ?? {});
  }
}
