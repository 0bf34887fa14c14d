/** Wiring of the attribution stats routes to DynamoDB (built once per warm function). */
import { dynamoAttribution } from '#shared/adapters/dynamodb/attribution.ts';
import { dynamoFlows } from '#shared/adapters/dynamodb/flow.repositories.ts';
import type { StatsDeps } from '#shared/domain/attribution/attribute.ts';
import { lazy } from '#shared/lazy.ts';
import { systemClock } from './clock.ts';

export const statsDeps = /* @__PURE__ */ lazy(
  (): StatsDeps => ({ attribution: dynamoAttribution(), flows: dynamoFlows(), clock: systemClock }),
);
