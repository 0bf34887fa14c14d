/**
 * The function catalog: every Lambda of the service, its entry file, its HTTP route(s) or queue, and the resources it
 * may touch. The CDK service stack and the local runtime both build from this one list, so what runs on a laptop cannot
 * drift from what is deployed. Each area's functions are listed in `areas/<area>.ts`; their shape is in
 * `function-spec.ts`. Pure data: no CDK or AWS SDK imports.
 */

import { ACCOUNTS_FUNCTIONS } from '#shared/catalog/areas/accounts.ts';
import { CAMPAIGNS_FUNCTIONS } from '#shared/catalog/areas/campaigns.ts';
import { EMAIL_FUNCTIONS } from '#shared/catalog/areas/email.ts';
import { EVENTS_FUNCTIONS } from '#shared/catalog/areas/events.ts';
import { FLOWS_FUNCTIONS } from '#shared/catalog/areas/flows.ts';
import { IMPORTS_FUNCTIONS } from '#shared/catalog/areas/imports.ts';
import { SEGMENTS_FUNCTIONS } from '#shared/catalog/areas/segments.ts';
import { WEBHOOKS_FUNCTIONS } from '#shared/catalog/areas/webhooks.ts';
import type { FunctionSpec, HttpFunction, QueueFunction } from './function-spec.ts';

export const FUNCTIONS: readonly FunctionSpec[] = [
  ...EVENTS_FUNCTIONS,
  ...IMPORTS_FUNCTIONS,
  ...WEBHOOKS_FUNCTIONS,
  ...EMAIL_FUNCTIONS,
  ...FLOWS_FUNCTIONS,
  ...SEGMENTS_FUNCTIONS,
  ...ACCOUNTS_FUNCTIONS,
  ...CAMPAIGNS_FUNCTIONS,
];

export const httpFunctions = (): HttpFunction[] => FUNCTIONS.filter((f): f is HttpFunction => f.kind === 'http');
export const queueFunctions = (): QueueFunction[] => FUNCTIONS.filter((f): f is QueueFunction => f.kind === 'queue');
