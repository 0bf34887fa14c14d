/**
 * The Scheduler adapter against the local Scheduler emulator: a timer is a one-time schedule in the stage's group whose
 * target retries for a day and then falls back on the timers queue's DLQ, so a delivery Scheduler cannot make is kept
 * (and alarmed) instead of dropped.
 */
import { GetScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { schedulerTimers, TIMER_RETRY_POLICY } from '#shared/adapters/scheduler/timers.ts';
import { config } from '#shared/config.ts';

let runtime: LocalRuntime;
let scheduler: SchedulerClient;
beforeAll(async () => {
  runtime = await startLocalRuntime({ gateways: false, pollers: false, logLevel: 'ERROR' });
  scheduler = new SchedulerClient({
    endpoint: runtime.urls.emulators,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
});
afterAll(async () => {
  scheduler?.destroy();
  await runtime?.stop();
});

describe('schedulerTimers', () => {
  it('sets a timer whose delivery is retried for a day and then lands in the timers queue’s DLQ', async () => {
    const dlq = config().timersDlqArn;
    expect(dlq).toMatch(/^arn:aws:sqs:.*timers-dlq$/);
    await schedulerTimers().set({
      name: 'checkout-st_sched-tok1',
      at: Date.now() + 3_600_000,
      payload: { v: 1, kind: 'checkout', storeId: 'st_sched', token: 'tok1' },
    });
    const schedule = await scheduler.send(
      new GetScheduleCommand({ Name: 'checkout-st_sched-tok1', GroupName: config().scheduleGroup }),
    );
    expect(schedule.Target).toMatchObject({
      Arn: config().timersQueueArn,
      RetryPolicy: TIMER_RETRY_POLICY,
      DeadLetterConfig: { Arn: dlq },
    });
  });

  const scheduleOf = (name: string) =>
    scheduler.send(new GetScheduleCommand({ Name: name, GroupName: config().scheduleGroup }));
  const atOf = (epochMs: number) => `at(${new Date(epochMs).toISOString().slice(0, 19)})`;

  it('creates a cart timer that an update found missing, and moves it on the next write', async () => {
    const at = Date.now() + 7_200_000;
    const name = 'cart-st_sched-tok2';
    // Revision 2 tries an update first: the schedule is not there, so it is created.
    await schedulerTimers().set({
      name,
      at,
      payload: { v: 1, kind: 'cart', storeId: 'st_sched', token: 'tok2', revision: 2 },
    });
    expect((await scheduleOf(name)).ScheduleExpression).toBe(atOf(at));
    await schedulerTimers().set({
      name,
      at: at + 60_000,
      payload: { v: 1, kind: 'cart', storeId: 'st_sched', token: 'tok2', revision: 3 },
    });
    const moved = await scheduleOf(name);
    expect(moved.ScheduleExpression).toBe(atOf(at + 60_000));
    expect(JSON.parse(moved.Target?.Input ?? '{}')).toMatchObject({ revision: 3 });
  });

  it('updates a checkout timer that a create found already there', async () => {
    const at = Date.now() + 3_600_000;
    const name = 'checkout-st_sched-tok3';
    const payload = { v: 1, kind: 'checkout', storeId: 'st_sched', token: 'tok3' } as const;
    await schedulerTimers().set({ name, at, payload });
    await schedulerTimers().set({ name, at: at + 120_000, payload });
    expect((await scheduleOf(name)).ScheduleExpression).toBe(atOf(at + 120_000));
  });
});
