/**
 * The local runtime's Scheduler and Secrets Manager emulators, driven through the real SDK clients, delivering to a
 * real fauxqs: what handlers see locally must be what they would see on AWS for the operations they use.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateScheduleCommand,
  type CreateScheduleCommandInput,
  CreateScheduleGroupCommand,
  DeleteScheduleCommand,
  DeleteScheduleGroupCommand,
  GetScheduleCommand,
  GetScheduleGroupCommand,
  ListSchedulesCommand,
  SchedulerClient,
  UpdateScheduleCommand,
} from '@aws-sdk/client-scheduler';
import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { type FauxqsServer, startFauxqs } from 'fauxqs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LocalClock } from '#local/clock.ts';
import { parseAtExpression } from '#local/emulators/scheduler/at-expression.ts';
import { type AwsEmulators, startAwsEmulators } from '#local/emulators/server.ts';

const region = 'us-east-1';
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const ROLE = 'arn:aws:iam::000000000000:role/scheduler';
// Effectively disables the background loop so `fireDue()` counts are deterministic; one test enables it.
const NO_TICK = 3_600_000;

let fauxqs: FauxqsServer;
let sqs: SQSClient;
let clock: LocalClock;
let emulators: AwsEmulators;
let scheduler: SchedulerClient;
let dataDir: string;
let queueCount = 0;

beforeAll(async () => {
  fauxqs = await startFauxqs({ port: 0, logger: false });
  sqs = new SQSClient({ endpoint: fauxqs.address, region, credentials });
  dataDir = await mkdtemp(join(tmpdir(), 'storeflow-emulators-'));
  clock = new LocalClock();
  emulators = await startAwsEmulators({
    sqsEndpoint: fauxqs.address,
    clock,
    secrets: {
      'storeflow/master-key': 'by-name',
      'arn:aws:secretsmanager:us-east-1:000000000000:secret:storeflow/other-AbCdEf': 'by-arn',
    },
    tickMs: NO_TICK,
  });
  scheduler = new SchedulerClient({ endpoint: emulators.url, region, credentials });
});

afterAll(async () => {
  scheduler?.destroy();
  sqs?.destroy();
  await emulators?.stop();
  await fauxqs?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** A fresh FIFO queue per test, so messages of one test never satisfy another. */
function fifoQueue(): { queueUrl: string; queueArn: string } {
  queueCount++;
  return fauxqs.createQueue(`timers-${queueCount}.fifo`, { attributes: { FifoQueue: 'true' } });
}

/** `at()` expression `seconds` from the timers' clock, in UTC. */
function atIn(seconds: number): string {
  return `at(${new Date(clock.now() + seconds * 1000).toISOString().slice(0, 19)})`;
}

function scheduleInput(name: string, queueArn: string, overrides: Partial<CreateScheduleCommandInput> = {}) {
  return {
    Name: name,
    ScheduleExpression: atIn(3600),
    FlexibleTimeWindow: { Mode: 'OFF' },
    ActionAfterCompletion: 'DELETE',
    Target: { Arn: queueArn, RoleArn: ROLE, Input: `{"timer":"${name}"}`, SqsParameters: { MessageGroupId: name } },
    ...overrides,
  } satisfies CreateScheduleCommandInput;
}

async function receive(queueUrl: string) {
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 0,
      MessageSystemAttributeNames: ['MessageGroupId'],
    }),
  );
  return Messages;
}

/** The SDK error a promise rejects with (fails the test when it resolves). */
async function sdkError(promise: Promise<unknown>): Promise<Error & { $metadata?: { httpStatusCode?: number } }> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the call to fail');
}

describe('Scheduler API', () => {
  it('creates, reads, updates, lists and deletes a schedule', async () => {
    const { queueArn } = fifoQueue();
    const created = await scheduler.send(new CreateScheduleCommand(scheduleInput('crud-1', queueArn)));
    expect(created.ScheduleArn).toBe('arn:aws:scheduler:us-east-1:000000000000:schedule/default/crud-1');

    const got = await scheduler.send(new GetScheduleCommand({ Name: 'crud-1' }));
    expect(got).toMatchObject({
      Name: 'crud-1',
      GroupName: 'default',
      State: 'ENABLED',
      ActionAfterCompletion: 'DELETE',
      Target: { Arn: queueArn, Input: '{"timer":"crud-1"}', SqsParameters: { MessageGroupId: 'crud-1' } },
    });
    expect(got.CreationDate).toBeInstanceOf(Date);
    expect(Math.abs((got.CreationDate?.getTime() ?? 0) - Date.now())).toBeLessThan(60_000);

    const startDate = new Date('2030-01-01T00:00:00.250Z');
    await scheduler.send(
      new UpdateScheduleCommand({
        ...scheduleInput('crud-1', queueArn),
        State: 'DISABLED',
        Description: 'paused',
        StartDate: startDate,
      }),
    );
    const updated = await scheduler.send(new GetScheduleCommand({ Name: 'crud-1', GroupName: 'default' }));
    expect(updated).toMatchObject({ State: 'DISABLED', Description: 'paused', StartDate: startDate });
    expect(updated.CreationDate).toEqual(got.CreationDate);

    await scheduler.send(new CreateScheduleCommand(scheduleInput('crud-2', queueArn)));
    await scheduler.send(new CreateScheduleCommand(scheduleInput('crud-3', queueArn)));
    await scheduler.send(new CreateScheduleCommand(scheduleInput('other-1', queueArn)));

    const firstPage = await scheduler.send(new ListSchedulesCommand({ NamePrefix: 'crud-', MaxResults: 2 }));
    expect(firstPage.Schedules?.map((s) => s.Name)).toEqual(['crud-1', 'crud-2']);
    expect(firstPage.Schedules?.[0]?.Target?.Arn).toBe(queueArn);
    expect(firstPage.NextToken).toBeTruthy();
    const secondPage = await scheduler.send(
      new ListSchedulesCommand({ NamePrefix: 'crud-', MaxResults: 2, NextToken: firstPage.NextToken }),
    );
    expect(secondPage.Schedules?.map((s) => s.Name)).toEqual(['crud-3']);
    expect(secondPage.NextToken).toBeUndefined();
    const disabled = await scheduler.send(new ListSchedulesCommand({ NamePrefix: 'crud-', State: 'DISABLED' }));
    expect(disabled.Schedules?.map((s) => s.Name)).toEqual(['crud-1']);

    for (const name of ['crud-1', 'crud-2', 'crud-3', 'other-1']) {
      await scheduler.send(new DeleteScheduleCommand({ Name: name }));
    }
    expect((await sdkError(scheduler.send(new GetScheduleCommand({ Name: 'crud-1' })))).name).toBe(
      'ResourceNotFoundException',
    );
    const remaining = await scheduler.send(new ListSchedulesCommand({ NamePrefix: 'crud-' }));
    expect(remaining.Schedules).toEqual([]);
  });

  it('surfaces Conflict, ResourceNotFound and Validation errors with their names and statuses', async () => {
    const { queueArn } = fifoQueue();
    await scheduler.send(new CreateScheduleCommand(scheduleInput('errors-1', queueArn)));

    const conflict = await sdkError(scheduler.send(new CreateScheduleCommand(scheduleInput('errors-1', queueArn))));
    expect(conflict.name).toBe('ConflictException');
    expect(conflict.$metadata?.httpStatusCode).toBe(409);

    const missing = await sdkError(scheduler.send(new GetScheduleCommand({ Name: 'nope' })));
    expect(missing.name).toBe('ResourceNotFoundException');
    expect(missing.$metadata?.httpStatusCode).toBe(404);
    const updateMissing = await sdkError(scheduler.send(new UpdateScheduleCommand(scheduleInput('nope', queueArn))));
    expect(updateMissing.name).toBe('ResourceNotFoundException');
    const deleteMissing = await sdkError(scheduler.send(new DeleteScheduleCommand({ Name: 'nope' })));
    expect(deleteMissing.name).toBe('ResourceNotFoundException');
    const noGroup = await sdkError(
      scheduler.send(new CreateScheduleCommand(scheduleInput('errors-2', queueArn, { GroupName: 'no-such-group' }))),
    );
    expect(noGroup.name).toBe('ResourceNotFoundException');

    const rate = await sdkError(
      scheduler.send(
        new CreateScheduleCommand(scheduleInput('errors-3', queueArn, { ScheduleExpression: 'rate(5 minutes)' })),
      ),
    );
    expect(rate.name).toBe('ValidationException');
    expect(rate.$metadata?.httpStatusCode).toBe(400);
    expect(rate.message).toMatch(/supports only one-time at\(/);
    const badDate = await sdkError(
      scheduler.send(
        new CreateScheduleCommand(
          scheduleInput('errors-4', queueArn, { ScheduleExpression: 'at(2030-02-30T10:00:00)' }),
        ),
      ),
    );
    expect(badDate.name).toBe('ValidationException');
    const noGroupId = await sdkError(
      scheduler.send(
        new CreateScheduleCommand({
          ...scheduleInput('errors-5', queueArn),
          Target: { Arn: queueArn, RoleArn: ROLE },
        }),
      ),
    );
    expect(noGroupId.name).toBe('ValidationException');
    expect(noGroupId.message).toMatch(/MessageGroupId/);
    const lambdaTarget = await sdkError(
      scheduler.send(
        new CreateScheduleCommand({
          ...scheduleInput('errors-6', queueArn),
          Target: { Arn: 'arn:aws:lambda:us-east-1:000000000000:function:f', RoleArn: ROLE },
        }),
      ),
    );
    expect(lambdaTarget.name).toBe('ValidationException');

    await scheduler.send(new DeleteScheduleCommand({ Name: 'errors-1' }));
  });

  it('manages schedule groups and scopes schedules to them', async () => {
    const { queueArn } = fifoQueue();
    const group = await scheduler.send(new CreateScheduleGroupCommand({ Name: 'store-42' }));
    expect(group.ScheduleGroupArn).toBe('arn:aws:scheduler:us-east-1:000000000000:schedule-group/store-42');
    expect((await sdkError(scheduler.send(new CreateScheduleGroupCommand({ Name: 'store-42' })))).name).toBe(
      'ConflictException',
    );
    expect(await scheduler.send(new GetScheduleGroupCommand({ Name: 'default' }))).toMatchObject({ State: 'ACTIVE' });

    await scheduler.send(new CreateScheduleCommand(scheduleInput('grouped', queueArn, { GroupName: 'store-42' })));
    expect((await sdkError(scheduler.send(new GetScheduleCommand({ Name: 'grouped' })))).name).toBe(
      'ResourceNotFoundException',
    );
    const inGroup = await scheduler.send(new GetScheduleCommand({ Name: 'grouped', GroupName: 'store-42' }));
    expect(inGroup.Arn).toBe('arn:aws:scheduler:us-east-1:000000000000:schedule/store-42/grouped');
    const listed = await scheduler.send(new ListSchedulesCommand({ GroupName: 'store-42' }));
    expect(listed.Schedules?.map((s) => s.Name)).toEqual(['grouped']);

    await scheduler.send(new DeleteScheduleGroupCommand({ Name: 'store-42' }));
    expect((await sdkError(scheduler.send(new GetScheduleGroupCommand({ Name: 'store-42' })))).name).toBe(
      'ResourceNotFoundException',
    );
    expect(emulators.scheduler.list().some((s) => s.GroupName === 'store-42')).toBe(false);
    expect((await sdkError(scheduler.send(new DeleteScheduleGroupCommand({ Name: 'default' })))).name).toBe(
      'ValidationException',
    );
  });
});

describe('Scheduler firing', () => {
  it('fires a one-time schedule only once the clock reaches it, then deletes it', async () => {
    const { queueArn, queueUrl } = fifoQueue();
    await scheduler.send(new CreateScheduleCommand(scheduleInput('fire-1', queueArn)));

    expect(await emulators.scheduler.fireDue()).toBe(0);
    expect(await receive(queueUrl)).toEqual([]);

    clock.advance(3600);
    expect(await emulators.scheduler.fireDue()).toBe(1);
    const messages = await receive(queueUrl);
    expect(messages.map((m) => m.Body)).toEqual(['{"timer":"fire-1"}']);
    expect(messages[0]?.Attributes?.MessageGroupId).toBe('fire-1');
    expect((await sdkError(scheduler.send(new GetScheduleCommand({ Name: 'fire-1' })))).name).toBe(
      'ResourceNotFoundException',
    );
    expect(await emulators.scheduler.fireDue()).toBe(0);
  });

  it('UpdateSchedule moves the time, and a completed NONE schedule is kept but never fires again', async () => {
    const { queueArn, queueUrl } = fifoQueue();
    await scheduler.send(new CreateScheduleCommand(scheduleInput('moved', queueArn)));
    await scheduler.send(
      new UpdateScheduleCommand(
        scheduleInput('moved', queueArn, { ScheduleExpression: atIn(3 * 3600), ActionAfterCompletion: 'NONE' }),
      ),
    );

    clock.advance(3600);
    expect(await emulators.scheduler.fireDue()).toBe(0);
    expect(await receive(queueUrl)).toEqual([]);

    clock.advance(2 * 3600);
    expect(await emulators.scheduler.fireDue()).toBe(1);
    expect((await receive(queueUrl)).map((m) => m.Body)).toEqual(['{"timer":"moved"}']);

    const kept = await scheduler.send(new GetScheduleCommand({ Name: 'moved' }));
    expect(kept.State).toBe('ENABLED');
    clock.advance(3600);
    expect(await emulators.scheduler.fireDue()).toBe(0);
    await scheduler.send(new DeleteScheduleCommand({ Name: 'moved' }));
  });

  it('sends {} when the target has no Input, and delivers to a standard queue', async () => {
    const { queueArn, queueUrl } = fauxqs.createQueue('timers-standard');
    await scheduler.send(
      new CreateScheduleCommand({
        ...scheduleInput('no-input', queueArn, { ScheduleExpression: atIn(-1) }),
        Target: { Arn: queueArn, RoleArn: ROLE },
      }),
    );
    expect(await emulators.scheduler.fireDue()).toBe(1);
    expect((await receive(queueUrl)).map((m) => m.Body)).toEqual(['{}']);
  });

  it('keeps a schedule whose delivery fails and delivers it once the queue exists', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const queueArn = 'arn:aws:sqs:us-east-1:000000000000:created-later.fifo';
      await scheduler.send(
        new CreateScheduleCommand(scheduleInput('retry', queueArn, { ScheduleExpression: atIn(-1) })),
      );

      expect(await emulators.scheduler.fireDue()).toBe(0);
      expect(await emulators.scheduler.fireDue()).toBe(0);
      expect(emulators.scheduler.list().map((s) => s.Name)).toContain('retry');
      expect(warn).toHaveBeenCalledTimes(1);

      const { queueUrl } = fauxqs.createQueue('created-later.fifo', { attributes: { FifoQueue: 'true' } });
      expect(await emulators.scheduler.fireDue()).toBe(1);
      expect((await receive(queueUrl)).map((m) => m.Body)).toEqual(['{"timer":"retry"}']);
    } finally {
      warn.mockRestore();
    }
  });

  it('never double-fires when runs overlap', async () => {
    const { queueArn, queueUrl } = fifoQueue();
    await scheduler.send(new CreateScheduleCommand(scheduleInput('once', queueArn, { ScheduleExpression: atIn(-1) })));
    const counts = await Promise.all([
      emulators.scheduler.fireDue(),
      emulators.scheduler.fireDue(),
      emulators.scheduler.fireDue(),
    ]);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(1);
    expect(await receive(queueUrl)).toHaveLength(1);
  });

  it('fires from the background loop without an explicit fireDue', async () => {
    const loopClock = new LocalClock();
    const looping = await startAwsEmulators({ sqsEndpoint: fauxqs.address, clock: loopClock, secrets: {}, tickMs: 20 });
    const client = new SchedulerClient({ endpoint: looping.url, region, credentials });
    try {
      const { queueArn, queueUrl } = fifoQueue();
      const at = `at(${new Date(loopClock.now() + 600_000).toISOString().slice(0, 19)})`;
      await client.send(new CreateScheduleCommand(scheduleInput('looped', queueArn, { ScheduleExpression: at })));
      loopClock.advance(600);
      await vi.waitFor(() => expect(looping.scheduler.list()).toEqual([]), { timeout: 5000, interval: 20 });
      expect((await receive(queueUrl)).map((m) => m.Body)).toEqual(['{"timer":"looped"}']);
    } finally {
      client.destroy();
      await looping.stop();
    }
  });
});

describe('Scheduler persistence', () => {
  it('keeps groups and schedules across a restart, and fires a schedule that became due meanwhile', async () => {
    const persistentClock = new LocalClock({ file: join(dataDir, 'clock.json') });
    const { queueArn, queueUrl } = fifoQueue();
    const start = () =>
      startAwsEmulators({ sqsEndpoint: fauxqs.address, clock: persistentClock, secrets: {}, dataDir, tickMs: NO_TICK });

    const first = await start();
    const firstClient = new SchedulerClient({ endpoint: first.url, region, credentials });
    await firstClient.send(new CreateScheduleGroupCommand({ Name: 'persisted' }));
    const at = `at(${new Date(persistentClock.now() + 3_600_000).toISOString().slice(0, 19)})`;
    await firstClient.send(
      new CreateScheduleCommand(
        scheduleInput('survivor', queueArn, { GroupName: 'persisted', ScheduleExpression: at }),
      ),
    );
    firstClient.destroy();
    await first.stop();

    persistentClock.advance(3600);
    const second = await start();
    const secondClient = new SchedulerClient({ endpoint: second.url, region, credentials });
    try {
      expect(await secondClient.send(new GetScheduleGroupCommand({ Name: 'persisted' }))).toMatchObject({
        Name: 'persisted',
      });
      expect(second.scheduler.list().map((s) => s.Name)).toEqual(['survivor']);
      expect(await second.scheduler.fireDue()).toBe(1);
      expect((await receive(queueUrl)).map((m) => m.Body)).toEqual(['{"timer":"survivor"}']);
      expect(second.scheduler.list()).toEqual([]);
    } finally {
      secondClient.destroy();
      await second.stop();
    }
    // The deletion after firing was persisted too.
    const third = await start();
    expect(third.scheduler.list()).toEqual([]);
    await third.stop();
  });
});

describe('LocalClock', () => {
  it('advances, rejects going backwards, and restores its offset from its file', async () => {
    const file = join(dataDir, 'clock-test', 'clock.json');
    const first = new LocalClock({ file });
    const before = Date.now();
    first.advance(90);
    expect(first.offsetMs).toBe(90_000);
    expect(first.now()).toBeGreaterThanOrEqual(before + 90_000);
    expect(() => first.advance(-1)).toThrow(RangeError);
    expect(() => first.advance(Number.POSITIVE_INFINITY)).toThrow(RangeError);
    expect(() => first.advance(Number.NaN)).toThrow(RangeError);
    expect(new LocalClock({ file }).offsetMs).toBe(90_000);
    expect(new LocalClock().offsetMs).toBe(0);
  });
});

describe('at() expressions', () => {
  it('reads the wall time in the schedule time zone', () => {
    expect(parseAtExpression('at(2025-01-15T09:00:00)', 'UTC')).toBe(Date.UTC(2025, 0, 15, 9));
    // New York is UTC-5 in winter and UTC-4 in summer: both sides of DST.
    expect(parseAtExpression('at(2025-01-15T09:00:00)', 'America/New_York')).toBe(Date.UTC(2025, 0, 15, 14));
    expect(parseAtExpression('at(2025-07-15T09:00:00)', 'America/New_York')).toBe(Date.UTC(2025, 6, 15, 13));
    expect(parseAtExpression('at(2025-01-15T09:00:00)', '+05:30')).toBe(Date.UTC(2025, 0, 15, 3, 30));
    expect(() => parseAtExpression('at(2025-01-15T09:00:00)', 'Mars/Olympus')).toThrow(/Timezone/);
    expect(() => parseAtExpression('cron(0 9 * * ? *)', 'UTC')).toThrow(/supports only one-time at/);
  });
});

describe('Secrets Manager', () => {
  it('returns secret strings by name or ARN and ResourceNotFoundException for unknown ids', async () => {
    const secrets = new SecretsManagerClient({ endpoint: emulators.url, region, credentials });
    try {
      const byName = await secrets.send(new GetSecretValueCommand({ SecretId: 'storeflow/master-key' }));
      expect(byName).toMatchObject({
        Name: 'storeflow/master-key',
        SecretString: 'by-name',
        VersionStages: ['AWSCURRENT'],
        ARN: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:storeflow/master-key',
      });
      const byArn = await secrets.send(
        new GetSecretValueCommand({
          SecretId: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:storeflow/other-AbCdEf',
        }),
      );
      expect(byArn.SecretString).toBe('by-arn');
      const described = await secrets.send(new DescribeSecretCommand({ SecretId: 'storeflow/master-key' }));
      expect(described.Name).toBe('storeflow/master-key');
      expect(described.VersionIdsToStages).toEqual({ [byName.VersionId ?? '']: ['AWSCURRENT'] });

      const unknown = await sdkError(secrets.send(new GetSecretValueCommand({ SecretId: 'storeflow/nope' })));
      expect(unknown.name).toBe('ResourceNotFoundException');
      expect(unknown.$metadata?.httpStatusCode).toBe(400);
      const unsupported = await sdkError(
        secrets.send(new PutSecretValueCommand({ SecretId: 'storeflow/master-key', SecretString: 'x' })),
      );
      expect(unsupported.$metadata?.httpStatusCode).toBe(400);
      expect(unsupported.message).toMatch(/supports only GetSecretValue and DescribeSecret/);
    } finally {
      secrets.destroy();
    }
  });
});
