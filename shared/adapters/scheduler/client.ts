/**
 * The service's EventBridge Scheduler client (one per process, observed as `scheduler`): the two operations the
 * timers send (`CreateSchedule`, `UpdateSchedule`) on the small client of `../signed-client.ts` instead of
 * `@aws-sdk/client-scheduler`, whose model (every shape and error of the API, its endpoint rules and schema serde) was
 * in the bundle of every function that sets a timer (ingest worker, flow worker, timer worker, …) and cost each call
 * the SDK's schema walk (the worker bench's profile, where a fifth of the events set a timer).
 *
 * Scheduler is REST with JSON bodies whose keys are the SDK's member names (`jsonOperation`): `POST` (create) or `PUT`
 * (update) `/schedules/{Name}` with the input, less `Name`, as the body, and a `ClientToken` as the SDK fills in (its
 * idempotency token: a create retried after a lost answer is not a second schedule). Errors are named as the SDK names
 * them (`ResourceNotFoundException`, `ConflictException`…), from the `x-amzn-errortype` header.
 */
import { randomUUID } from 'node:crypto';
import type {
  CreateScheduleCommandInput,
  CreateScheduleCommandOutput,
  UpdateScheduleCommandInput,
  UpdateScheduleCommandOutput,
} from '@aws-sdk/client-scheduler';
import { escapeUri, jsonOperation, OperationCommand, restJsonClient } from '#shared/adapters/signed-client.ts';

type Output<T> = Omit<T, '$metadata'>;

const schedulePath = (input: { readonly Name: string | undefined }) => `/schedules/${escapeUri(input.Name ?? '')}`;

/** The body: every member but the name (in the path), with the SDK's idempotency token when none is given. */
const scheduleBody = ({ Name: _name, ...rest }: CreateScheduleCommandInput | UpdateScheduleCommandInput) => ({
  ...rest,
  ClientToken: rest.ClientToken ?? randomUUID(),
});

const CREATE_SCHEDULE = jsonOperation<CreateScheduleCommandInput, Output<CreateScheduleCommandOutput>>(
  'CreateSchedule',
  'POST',
  schedulePath,
  scheduleBody,
);
const UPDATE_SCHEDULE = jsonOperation<UpdateScheduleCommandInput, Output<UpdateScheduleCommandOutput>>(
  'UpdateSchedule',
  'PUT',
  schedulePath,
  scheduleBody,
);

const CLIENT_NAME = 'SchedulerClient';
export const createSchedule = (input: CreateScheduleCommandInput) =>
  new OperationCommand(CLIENT_NAME, CREATE_SCHEDULE, input);
export const updateSchedule = (input: UpdateScheduleCommandInput) =>
  new OperationCommand(CLIENT_NAME, UPDATE_SCHEDULE, input);

export const scheduler = /* @__PURE__ */ restJsonClient('scheduler', {
  endpointId: 'SCHEDULER',
  signingName: 'scheduler',
  apiVersion: '2021-06-30',
  defaultEndpoint: (region) => `https://scheduler.${region}.amazonaws.com`,
});
