/**
 * Timers as EventBridge Scheduler one-time schedules: `at()` in UTC, `ActionAfterCompletion: DELETE`, the timers queue
 * as target. Setting a timer is one `UpdateSchedule` (the usual case: a cart written again) or, for a new name, one
 * `CreateSchedule`; the other call only when the first finds the schedule missing or already there. Scheduler retries a
 * failed delivery for up to a day, then puts the timer in the timers queue's DLQ (alarmed), so no timer is dropped
 * silently.
 */
import type { CreateScheduleCommandInput } from '@aws-sdk/client-scheduler';
import { config, required } from '#shared/config.ts';
import type { Timer } from '#shared/domain/timers/model.ts';
import type { Timers } from '#shared/domain/timers/ports.ts';
import { createSchedule, scheduler, updateSchedule } from './client.ts';

/** `at()` takes local date-time without zone or milliseconds; the zone is UTC. */
const atExpression = (epochMs: number) => `at(${new Date(epochMs).toISOString().slice(0, 19)})`;

/** Scheduler's retries of a delivery the timers queue refused (throttled, or the role briefly missing). */
export const TIMER_RETRY_POLICY = { MaximumEventAgeInSeconds: 86_400, MaximumRetryAttempts: 185 } as const;

const scheduleInput = (timer: Timer): CreateScheduleCommandInput => ({
  Name: timer.name,
  GroupName: config().scheduleGroup,
  ScheduleExpression: atExpression(timer.at),
  ScheduleExpressionTimezone: 'UTC',
  FlexibleTimeWindow: { Mode: 'OFF' },
  ActionAfterCompletion: 'DELETE',
  Target: {
    Arn: required('timersQueueArn'),
    RoleArn: required('schedulerRoleArn'),
    Input: JSON.stringify(timer.payload),
    RetryPolicy: TIMER_RETRY_POLICY,
    ...(config().timersDlqArn ? { DeadLetterConfig: { Arn: config().timersDlqArn } } : {}),
  },
});

const named = (error: unknown, name: string) => error instanceof Error && error.name === name;

export const schedulerTimers = (): Timers => ({
  async set(timer: Timer) {
    const input = scheduleInput(timer);
    // Cart timers are mostly re-set (every cart write), checkout timers set once: try the likely call first.
    const updateFirst = timer.payload.kind === 'cart' && timer.payload.revision > 1;
    try {
      await scheduler().send(updateFirst ? updateSchedule(input) : createSchedule(input));
    } catch (error) {
      if (updateFirst && named(error, 'ResourceNotFoundException')) {
        await scheduler().send(createSchedule(input));
      } else if (!updateFirst && named(error, 'ConflictException')) {
        await scheduler().send(updateSchedule(input));
      } else {
        throw error;
      }
    }
  },
});
