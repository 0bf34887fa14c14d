/** Wiring of the attribution stats routes to DynamoDB (built once per warm function). */
import { dynamoAttribution } from '#shared/adapters/dynamodb/attribution.ts';
import { dynamoFlows } from '#shared/adapters/dynamodb/flow.repositories.ts';
import type { StatsDeps } from '#shared/domain/attribution/attribute.ts';
import type { OverviewDeps } from '#shared/domain/console/overview.ts';
import { lazy } from '#shared/lazy.ts';
import { systemClock } from './clock.ts';

/** The console's store overview: the counters and the store's flows. */
export const overviewDeps = /* @__PURE__ */ lazy(
  (): OverviewDeps => ({ attribution: dynamoAttribution(), flows: dynamoFlows(), clock: systemClock }),
);

export const statsDeps = /* @__PURE__ */ lazy(
  (): StatsDeps => ({ attribution: dynamoAttribution(), flows: dynamoFlows(), clock: systemClock }),
);
