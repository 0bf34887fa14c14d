/**
 * Flow definition use cases (`/api/v1/flows`). Every call is scoped to the authenticated store: a flow id of another
 * store reads exactly like an unknown one (404), whatever the method.
 */

import type { Clock } from '#shared/domain/clock.ts';
import { randomBase62 } from '#shared/domain/ids.ts';
import { RevisionConflict } from '#shared/domain/repository.ts';
import { conflict, notFound, validationError } from '#shared/errors.ts';
import { LIMITS } from '#shared/limits.ts';
import type { Flow } from './flow.ts';
import { possibleFlowId } from './flow-id.ts';
import { type FlowDefinition, isPresetRequest, parseFlowDefinition, parsePresetRequest } from './flow-schema.ts';
import type { FlowRepository } from './ports.ts';
import { buildSteps, PRESETS, presetSummaries } from './presets/index.ts';

export interface ManageFlowDeps {
  readonly flows: FlowRepository;
  readonly clock: Clock;
  /** Whether the store has the segment a `segment_entered` / `segment_exited` flow names (without it: not checked). */
  readonly segmentExists?: (storeId: string, segmentId: string) => Promise<boolean>;
}

/** A segment flow must name a segment of its own store: another store's segment reads as none. */
const checkSegment = async (deps: ManageFlowDeps, storeId: string, definition: FlowDefinition) => {
  if (definition.segmentId === undefined || !deps.segmentExists) return;
  if (!(await deps.segmentExists(storeId, definition.segmentId))) {
    throw validationError(`segmentId ${definition.segmentId} names no segment of this store`);
  }
};

/** Flow ids: `fl_` and 20 base62 characters (URL- and SES-tag-safe). */
export const newFlowId = () => `fl_${randomBase62(20)}`;

/** The flow as the API shows it: the definition, its id, preset, times in epoch seconds and its revision. */
export const flowRecord = (flow: Flow) => ({
  id: flow.id,
  name: flow.name,
  trigger: flow.trigger,
  enabled: flow.enabled,
  ...(flow.entry ? { entry: flow.entry } : {}),
  ...(flow.segmentId ? { segmentId: flow.segmentId } : {}),
  reentry: flow.reentry,
  consent: flow.consent,
  ...(flow.holdoutPercent ? { holdoutPercent: flow.holdoutPercent } : {}),
  ...(flow.onFrequencyCap === 'wait' ? { onFrequencyCap: flow.onFrequencyCap } : {}),
  steps: flow.steps,
  ...(flow.preset ? { preset: flow.preset } : {}),
  createdAt: Math.floor(flow.createdAt / 1000),
  updatedAt: Math.floor(flow.updatedAt / 1000),
  revision: flow.revision,
});
export type FlowRecord = ReturnType<typeof flowRecord>;

const FLOW_NOT_FOUND = 'Flow not found';

/** A path id that cannot be a flow id is simply not found (never a validation error that would tell ids apart). */
const ownFlow = async (deps: ManageFlowDeps, storeId: string, flowId: string | undefined): Promise<Flow> => {
  const flow = possibleFlowId(flowId) ? await deps.flows.get(storeId, flowId) : undefined;
  if (!flow) throw notFound(FLOW_NOT_FOUND);
  return flow;
};

const definitionFromPreset = (body: unknown): { definition: FlowDefinition; preset: string } => {
  const request = parsePresetRequest(body);
  const preset = PRESETS[request.preset];
  const definition = parseFlowDefinition({
    name: request.name ?? preset.name,
    trigger: preset.trigger,
    enabled: request.enabled ?? true,
    ...(preset.entry ? { entry: preset.entry } : {}),
    reentry: preset.reentry,
    consent: preset.consent,
    steps: buildSteps(preset, request),
  }).definition;
  return { definition, preset: preset.trigger };
};

/**
 * `POST /flows`: a full definition, or `{preset, from, replyTo?, name?, enabled?}` for a preset. The per-store limit is
 * checked before writing; two creates racing at the limit may both pass (the limit is a guard rail, not a quota).
 */
/** What `POST /flows` asks for: a full definition, or one built from a preset (`{preset, from}`). */
export interface FlowCreateInput {
  readonly definition: FlowDefinition;
  readonly preset: string | undefined;
}

/** Reads a `POST /flows` body; throws the validation error naming the field and the rule. */
export const parseFlowCreateRequest = (body: unknown): FlowCreateInput =>
  isPresetRequest(body)
    ? definitionFromPreset(body)
    : { definition: parseFlowDefinition(body).definition, preset: undefined };

export const createFlow = async (
  deps: ManageFlowDeps,
  storeId: string,
  { definition, preset }: FlowCreateInput,
): Promise<FlowRecord> => {
  await checkSegment(deps, storeId, definition);
  const existing = await deps.flows.list(storeId);
  if (existing.length >= LIMITS.flowsPerStore) {
    throw conflict(`The store already has ${LIMITS.flowsPerStore} flows, the most allowed; delete one first`);
  }
  const now = deps.clock.now();
  const flow: Flow = {
    ...definition,
    storeId,
    id: newFlowId(),
    ...(preset ? { preset } : {}),
    createdAt: now,
    updatedAt: now,
    revision: 1,
  };
  await deps.flows.save(flow, 0);
  return flowRecord(flow);
};

export const listFlows = async (deps: ManageFlowDeps, storeId: string) => {
  const flows = await deps.flows.list(storeId);
  const list = flows.sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id)).map(flowRecord);
  return { list, total: list.length };
};

export const getFlow = async (deps: ManageFlowDeps, storeId: string, flowId: string | undefined) =>
  flowRecord(await ownFlow(deps, storeId, flowId));

const staleRevision = (given: number, current?: number) =>
  conflict(
    `The flow ${current === undefined ? 'is no longer' : `is at revision ${current}, not`} at revision ${given}: it was changed meanwhile; GET it and apply your change again`,
  );

/** A `PUT /flows/{flowId}` body: a full definition (a preset is for creating only), and the optional `revision`. */
export const parseFlowUpdateRequest = (body: unknown) => {
  if (isPresetRequest(body))
    throw validationError('preset is only for POST /api/v1/flows: PUT takes a full definition');
  return parseFlowDefinition(body);
};
export type FlowUpdateInput = ReturnType<typeof parseFlowUpdateRequest>;

/**
 * The flow's existence in the store, checked before its `PUT` body is read: a flow of another store answers 404 even
 * to an invalid body.
 */
export const assertOwnFlow = async (deps: ManageFlowDeps, storeId: string, flowId: string | undefined) => {
  await ownFlow(deps, storeId, flowId);
};

/**
 * `PUT /flows/{flowId}`: replaces the definition. With `revision`, only if the flow is still at that revision (409
 * otherwise); without it, the last write wins. What runs in progress do with the new steps is the engine's rule
 * (docs/flows.md, "How runs work").
 */
export const updateFlow = async (
  deps: ManageFlowDeps,
  storeId: string,
  flowId: string | undefined,
  { definition, revision }: FlowUpdateInput,
): Promise<FlowRecord> => {
  await checkSegment(deps, storeId, definition);
  for (let attempt = 1; ; attempt++) {
    const current = await ownFlow(deps, storeId, flowId);
    if (revision !== undefined && revision !== current.revision) throw staleRevision(revision, current.revision);
    const next: Flow = {
      ...definition,
      storeId,
      id: current.id,
      ...(current.preset ? { preset: current.preset } : {}),
      createdAt: current.createdAt,
      updatedAt: Math.max(deps.clock.now(), current.updatedAt),
      revision: current.revision + 1,
    };
    try {
      await deps.flows.save(next, current.revision);
      return flowRecord(next);
    } catch (error) {
      if (!(error instanceof RevisionConflict)) throw error;
      // Someone saved in between: with a revision the caller must see their change; without, retry on the new one.
      if (revision !== undefined) throw staleRevision(revision);
      if (attempt >= 3) throw conflict('The flow is being changed by another request; retry');
    }
  }
};

/**
 * Enables or disables a flow, keeping the rest of its definition (the console's switch). Conditional on the revision
 * read, retried on a concurrent change; the same as a `PUT` of the definition with only `enabled` changed.
 */
export const setFlowEnabled = async (
  deps: ManageFlowDeps,
  storeId: string,
  flowId: string | undefined,
  enabled: boolean,
): Promise<FlowRecord> => {
  for (let attempt = 1; ; attempt++) {
    const current = await ownFlow(deps, storeId, flowId);
    if (current.enabled === enabled) return flowRecord(current);
    const next: Flow = {
      ...current,
      enabled,
      updatedAt: Math.max(deps.clock.now(), current.updatedAt),
      revision: current.revision + 1,
    };
    try {
      await deps.flows.save(next, current.revision);
      return flowRecord(next);
    } catch (error) {
      if (!(error instanceof RevisionConflict)) throw error;
      if (attempt >= 3) throw conflict('The flow is being changed by another request; retry');
    }
  }
};

/** `DELETE /flows/{flowId}`: runs in progress stop at their next step (the engine finds the flow gone). */
export const deleteFlow = async (deps: ManageFlowDeps, storeId: string, flowId: string | undefined) => {
  const flow = await ownFlow(deps, storeId, flowId);
  if (!(await deps.flows.delete(storeId, flow.id))) throw notFound(FLOW_NOT_FOUND);
  return true;
};

/** `GET /flows/presets`. */
export const listPresets = () => {
  const list = presetSummaries();
  return { list, total: list.length };
};
