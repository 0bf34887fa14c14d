/** Wiring of the flow definition use cases to their adapters (built once per warm function). */

import { dynamoFlows } from '#shared/adapters/dynamodb/flow.repositories.ts';
import type { ManageFlowDeps } from '#shared/domain/flows/manage-flows.ts';
import { lazy } from '#shared/lazy.ts';
import { systemClock } from './clock.ts';

export const manageFlowDeps = /* @__PURE__ */ lazy(
  (): ManageFlowDeps => ({ flows: dynamoFlows(), clock: systemClock }),
);
