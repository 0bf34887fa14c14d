/** Wiring of the flow definition use cases to their adapters (built once per warm function). */

import { dynamoFlows } from '#shared/adapters/dynamodb/flow.repositories.ts';
import type { ManageFlowDeps } from '#shared/domain/flows/manage-flows.ts';

let manage: ManageFlowDeps | undefined;

export const manageFlowDeps = (): ManageFlowDeps => {
  manage ??= { flows: dynamoFlows(), clock: { now: () => Date.now() } };
  return manage;
};
