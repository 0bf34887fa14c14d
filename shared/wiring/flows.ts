/** Wiring of the flow definition use cases to their adapters (built once per warm function). */

import { dynamoFlows } from '#shared/adapters/dynamodb/flow.repositories.ts';
import { dynamoSegments } from '#shared/adapters/dynamodb/segments.repositories.ts';
import { systemClock } from '#shared/clock.ts';
import type { ManageFlowDeps } from '#shared/domain/flows/manage-flows.ts';
import { segmentExists } from '#shared/domain/segments/manage-segments.ts';
import { lazy } from '#shared/lazy.ts';

export const manageFlowDeps = /* @__PURE__ */ lazy((): ManageFlowDeps => {
  const segments = dynamoSegments();
  return {
    flows: dynamoFlows(),
    clock: systemClock,
    segmentExists: (storeId, segmentId) => segmentExists({ segments }, storeId, segmentId),
  };
});
