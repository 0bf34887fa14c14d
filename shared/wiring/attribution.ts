/** Wiring of the attribution stats routes to DynamoDB (built once per warm function). */
import { dynamoAttribution } from '#shared/adapters/dynamodb/attribution.ts';
import { dynamoFlows } from '#shared/adapters/dynamodb/flow.repositories.ts';
import { dynamoStoreRepository } from '#shared/adapters/dynamodb/store.repository.ts';
import { systemClock } from '#shared/clock.ts';
import type { RollupDeps, StatsDeps } from '#shared/domain/attribution/attribute.ts';
import { lazy } from '#shared/lazy.ts';

export const statsDeps = /* @__PURE__ */ lazy(
  (): StatsDeps => ({ attribution: dynamoAttribution(), flows: dynamoFlows(), clock: systemClock }),
);

/** Rebuilding a store's month counters (the admin command). */
export const rollupDeps = (): RollupDeps => ({
  attribution: dynamoAttribution(),
  stores: dynamoStoreRepository(),
  flows: dynamoFlows(),
});
