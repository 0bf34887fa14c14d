/** Wiring of the flow definition use cases to their adapters (built once per warm function). */
import type { ManageFlowDeps } from '../domain/flows/manage-flows.ts';
import { dynamoFlows } from './dynamodb/flow.repositories.ts';

let manage: ManageFlowDeps | undefined;

export const manageFlowDeps = (): ManageFlowDeps => {
  manage ??= { flows: dynamoFlows(), clock: { now: () => Date.now() } };
  return manage;
};
