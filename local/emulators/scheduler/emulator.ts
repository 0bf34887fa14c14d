/**
 * EventBridge Scheduler emulator: the REST-JSON API that the unmodified `@aws-sdk/client-scheduler` speaks, plus a
 * firing loop that delivers due schedules to SQS (fauxqs). It is plumbing for the local runtime, so it supports what
 * the service uses and rejects the rest loudly instead of pretending:
 *
 * - Only one-time `at(yyyy-mm-ddThh:mm:ss)` expressions, read in `ScheduleExpressionTimezone` (UTC by default; IANA
 *   zones and fixed offsets such as `+02:00`). `rate(...)` and `cron(...)` get a ValidationException.
 * - Only SQS queue targets (`arn:aws:sqs:{region}:{account}:{queue}`); the message body is `Target.Input` (or `{}`).
 * - A schedule fires at its `at()` time by the local clock (`FlexibleTimeWindow` is kept but not randomised);
 *   `StartDate`/`EndDate`, `RetryPolicy` and `DeadLetterConfig` are stored and returned, not enforced. A failed send is
 *   retried on every tick until it succeeds, so a message is never lost.
 * - After firing, `ActionAfterCompletion: DELETE` removes the schedule; `NONE` keeps it (State unchanged, as AWS does)
 *   and marks it fired so it never fires again until an UpdateSchedule re-arms it.
 * - With a data directory, groups and schedules are saved to `scheduler.json` after every change and reloaded at start.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { GetQueueUrlCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import * as v from 'valibot';
import type { LocalClock } from '#local/clock.ts';
import { ApiError, ERROR_STATUS } from './api-error.ts';
import { parseAtExpression } from './at-expression.ts';
import {
  DEFAULT_GROUP,
  type GroupRecord,
  ScheduleBody,
  type ScheduleRecord,
  type SchedulerReply,
  SQS_ARN_PATTERN,
  type StateFile,
} from './model.ts';
import { readStateFile, writeStateFile } from './state-file.ts';
import { checkName, decodeName, epochSeconds, json, parseBody, toApi } from './wire.ts';

const ACCOUNT = '000000000000';

/** Options of {@link SchedulerEmulator}. */
export interface SchedulerEmulatorOptions {
  /** What decides when schedules are due (a `LocalClock`, or the wall clock). */
  clock: Pick<LocalClock, 'now'>;
  /** Endpoint of the SQS emulator that targets are delivered to. */
  sqsEndpoint: string;
  /** Region of ARNs and of the SQS client; `us-east-1` by default. */
  region?: string;
  /** Directory of `scheduler.json`; state is in memory only without it. */
  dataDir?: string;
}

/** Scheduler state, its HTTP API (`handle`) and its firing loop. */
export class SchedulerEmulator {
  readonly #clock: Pick<LocalClock, 'now'>;
  readonly #region: string;
  readonly #file: string | undefined;
  readonly #sqs: SQSClient;
  readonly #groups = new Map<string, GroupRecord>();
  /** Keyed by `group/name` (neither may contain a slash). */
  readonly #schedules = new Map<string, ScheduleRecord>();
  readonly #queueUrls = new Map<string, string>();
  /** Last delivery error per schedule ARN, so a failing target warns once per distinct error, not every tick. */
  readonly #failures = new Map<string, string>();
  /** Firing runs are chained so two runs never see the same due schedule (no double delivery). */
  #chain: Promise<unknown> = Promise.resolve();
  #pendingRuns = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: SchedulerEmulatorOptions) {
    this.#clock = options.clock;
    this.#region = options.region ?? 'us-east-1';
    this.#sqs = new SQSClient({
      endpoint: options.sqsEndpoint,
      region: this.#region,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    this.#file = options.dataDir === undefined ? undefined : join(options.dataDir, 'scheduler.json');
    this.#load();
    if (!this.#groups.has(DEFAULT_GROUP)) this.#groups.set(DEFAULT_GROUP, this.#newGroup(DEFAULT_GROUP));
  }

  /** Snapshot of every schedule (copies: callers cannot change the emulator's state). */
  list(): ScheduleRecord[] {
    return structuredClone([...this.#schedules.values()]);
  }

  /** Starts the background firing loop; the timer is unref'd so it never keeps the process alive. */
  start(tickMs = 250): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => {
      // A slow run (e.g. SQS down) must not pile up ticks behind it.
      if (this.#pendingRuns > 0) return;
      this.fireDue().catch((error: unknown) => console.warn('[scheduler] firing run failed:', error));
    }, tickMs);
    this.#timer.unref();
  }

  /**
   * Delivers every ENABLED, not yet fired schedule whose `at()` time is at or before `clock.now()`.
   * Runs after any run already in progress, so a caller that just advanced the clock sees its schedules fire.
   * @returns how many schedules were delivered by this run.
   */
  fireDue(): Promise<number> {
    this.#pendingRuns++;
    const run = this.#chain.then(() => this.#fireOnce()).finally(() => this.#pendingRuns--);
    this.#chain = run.catch(() => undefined);
    return run;
  }

  /** Stops the loop, waits for a delivery in flight and releases the SQS client. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#chain;
    this.#sqs.destroy();
  }

  /** Serves one Scheduler API request; `body` is the raw request body. */
  handle(method: string, url: URL, body: string): SchedulerReply {
    try {
      return json(200, this.#route(method, url, body));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return {
        status: ERROR_STATUS[error.type],
        headers: { 'content-type': 'application/json', 'x-amzn-errortype': error.type },
        body: JSON.stringify({ Message: error.message }),
      };
    }
  }

  #route(method: string, url: URL, body: string): unknown {
    const [, collection, rawName, ...rest] = url.pathname.split('/');
    const name = rawName === undefined ? undefined : decodeName(rawName);
    const operation = `${method} /${collection}${name === undefined ? '' : '/{Name}'}`;
    if (rest.length === 0) {
      switch (operation) {
        case 'GET /schedules':
          return this.#listSchedules(url.searchParams);
        case 'POST /schedules/{Name}':
          return this.#putSchedule(name as string, parseBody(body), 'create');
        case 'PUT /schedules/{Name}':
          return this.#putSchedule(name as string, parseBody(body), 'update');
        case 'GET /schedules/{Name}':
          return toApi(this.#getSchedule(url.searchParams.get('groupName'), name as string));
        case 'DELETE /schedules/{Name}':
          return this.#deleteSchedule(url.searchParams.get('groupName'), name as string);
        case 'GET /schedule-groups':
          return { ScheduleGroups: [...this.#groups.values()] };
        case 'POST /schedule-groups/{Name}':
          return this.#createGroup(name as string);
        case 'GET /schedule-groups/{Name}':
          return this.#getGroup(name as string);
        case 'DELETE /schedule-groups/{Name}':
          return this.#deleteGroup(name as string);
      }
    }
    throw new ApiError(
      'UnknownOperationException',
      `The local Scheduler emulator does not support ${method} ${url.pathname}`,
    );
  }

  #putSchedule(name: string, input: unknown, mode: 'create' | 'update'): { ScheduleArn: string } {
    checkName(name, 'Name');
    const parsed = v.safeParse(ScheduleBody, input);
    if (!parsed.success) {
      const issue = parsed.issues[0];
      throw new ApiError('ValidationException', `${v.getDotPath(issue) ?? 'body'}: ${issue.message}`);
    }
    const fields = parsed.output;
    const dueAt = parseAtExpression(fields.ScheduleExpression, fields.ScheduleExpressionTimezone ?? 'UTC');
    if (fields.Target.Arn.endsWith('.fifo') && !fields.Target.SqsParameters?.MessageGroupId) {
      throw new ApiError('ValidationException', 'Target.SqsParameters.MessageGroupId is required for a FIFO queue');
    }
    const group = this.#requireGroup(fields.GroupName);
    const key = `${group.Name}/${name}`;
    const existing = this.#schedules.get(key);
    if (mode === 'create' && existing) {
      throw new ApiError('ConflictException', `Schedule ${name} already exists in group ${group.Name}.`);
    }
    if (mode === 'update' && !existing) {
      throw new ApiError('ResourceNotFoundException', `Schedule ${name} does not exist in group ${group.Name}.`);
    }
    const now = epochSeconds(Date.now());
    // Update is a full replace (as in AWS) and re-arms a schedule that already fired.
    const record: ScheduleRecord = {
      ...fields,
      Name: name,
      Arn: `arn:aws:scheduler:${this.#region}:${ACCOUNT}:schedule/${group.Name}/${name}`,
      CreationDate: existing?.CreationDate ?? now,
      LastModificationDate: now,
      dueAt,
    };
    this.#schedules.set(key, record);
    this.#save();
    return { ScheduleArn: record.Arn };
  }

  #getSchedule(groupName: string | null, name: string): ScheduleRecord {
    const group = groupName ?? DEFAULT_GROUP;
    const record = this.#schedules.get(`${group}/${name}`);
    if (!record) throw new ApiError('ResourceNotFoundException', `Schedule ${name} does not exist in group ${group}.`);
    return record;
  }

  #deleteSchedule(groupName: string | null, name: string): object {
    const record = this.#getSchedule(groupName, name);
    this.#schedules.delete(`${record.GroupName}/${record.Name}`);
    this.#save();
    return {};
  }

  #listSchedules(query: URLSearchParams): { Schedules: object[]; NextToken?: string } {
    const group = query.get('ScheduleGroup');
    const prefix = query.get('NamePrefix') ?? '';
    const state = query.get('State');
    if (state !== null && state !== 'ENABLED' && state !== 'DISABLED') {
      throw new ApiError('ValidationException', 'State must be ENABLED or DISABLED');
    }
    const max = Number(query.get('MaxResults') ?? 100);
    if (!Number.isInteger(max) || max < 1 || max > 100) {
      throw new ApiError('ValidationException', 'MaxResults must be an integer from 1 to 100');
    }
    // The token is the key of the last schedule returned, so deletions between pages skip nothing.
    const token = query.get('NextToken');
    const after = token === null ? '' : Buffer.from(token, 'base64url').toString('utf8');
    const matching = [...this.#schedules.entries()]
      .filter(([key, s]) => key > after && (group === null || s.GroupName === group))
      .filter(([, s]) => s.Name.startsWith(prefix) && (state === null || s.State === state))
      .sort(([a], [b]) => (a < b ? -1 : 1));
    const page = matching.slice(0, max);
    const last = page.at(-1);
    return {
      Schedules: page.map(([, s]) => ({
        Arn: s.Arn,
        Name: s.Name,
        GroupName: s.GroupName,
        State: s.State,
        CreationDate: s.CreationDate,
        LastModificationDate: s.LastModificationDate,
        Target: { Arn: s.Target.Arn },
      })),
      ...(matching.length > max && last ? { NextToken: Buffer.from(last[0]).toString('base64url') } : {}),
    };
  }

  #createGroup(name: string): { ScheduleGroupArn: string } {
    checkName(name, 'Name');
    if (this.#groups.has(name)) throw new ApiError('ConflictException', `Schedule group ${name} already exists.`);
    const group = this.#newGroup(name);
    this.#groups.set(name, group);
    this.#save();
    return { ScheduleGroupArn: group.Arn };
  }

  #getGroup(name: string): GroupRecord {
    return this.#requireGroup(name);
  }

  #deleteGroup(name: string): object {
    this.#requireGroup(name);
    if (name === DEFAULT_GROUP)
      throw new ApiError('ValidationException', 'The default schedule group cannot be deleted.');
    this.#groups.delete(name);
    // AWS deletes a group's schedules with it.
    for (const [key, s] of this.#schedules) if (s.GroupName === name) this.#schedules.delete(key);
    this.#save();
    return {};
  }

  #requireGroup(name: string): GroupRecord {
    const group = this.#groups.get(name);
    if (!group) throw new ApiError('ResourceNotFoundException', `Schedule group ${name} does not exist.`);
    return group;
  }

  #newGroup(name: string): GroupRecord {
    const now = epochSeconds(Date.now());
    return {
      Name: name,
      Arn: `arn:aws:scheduler:${this.#region}:${ACCOUNT}:schedule-group/${name}`,
      State: 'ACTIVE',
      CreationDate: now,
      LastModificationDate: now,
    };
  }

  async #fireOnce(): Promise<number> {
    const now = this.#clock.now();
    const due = [...this.#schedules.values()].filter(
      (s) => s.State === 'ENABLED' && s.firedAt === undefined && s.dueAt <= now,
    );
    let fired = 0;
    for (const schedule of due) {
      try {
        await this.#deliver(schedule);
      } catch (error) {
        // Left as is: the next tick retries it.
        this.#queueUrls.delete(schedule.Target.Arn);
        const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        if (this.#failures.get(schedule.Arn) !== message) {
          console.warn(`[scheduler] delivering ${schedule.Arn} failed, will retry: ${message}`);
          this.#failures.set(schedule.Arn, message);
        }
        continue;
      }
      fired++;
      this.#failures.delete(schedule.Arn);
      const key = `${schedule.GroupName}/${schedule.Name}`;
      // Updated or deleted while the message was in flight: that newer decision wins over completing this version.
      if (this.#schedules.get(key) !== schedule) continue;
      if (schedule.ActionAfterCompletion === 'DELETE') this.#schedules.delete(key);
      else schedule.firedAt = now;
    }
    if (fired > 0) this.#save();
    return fired;
  }

  async #deliver(schedule: ScheduleRecord): Promise<void> {
    const { Arn: targetArn, Input, SqsParameters } = schedule.Target;
    const fifo = targetArn.endsWith('.fifo');
    await this.#sqs.send(
      new SendMessageCommand({
        QueueUrl: await this.#queueUrl(targetArn),
        MessageBody: Input ?? '{}',
        ...(fifo && {
          MessageGroupId: SqsParameters?.MessageGroupId,
          // Stable per schedule and due time: a retry after a lost response is deduplicated by the queue.
          MessageDeduplicationId: createHash('sha256').update(`${schedule.Arn}|${schedule.dueAt}`).digest('hex'),
        }),
      }),
    );
  }

  async #queueUrl(queueArn: string): Promise<string> {
    const cached = this.#queueUrls.get(queueArn);
    if (cached) return cached;
    const queueName = SQS_ARN_PATTERN.exec(queueArn)?.[1] as string;
    const { QueueUrl } = await this.#sqs.send(new GetQueueUrlCommand({ QueueName: queueName }));
    if (!QueueUrl) throw new Error(`GetQueueUrl returned no URL for ${queueName}`);
    this.#queueUrls.set(queueArn, QueueUrl);
    return QueueUrl;
  }

  #load(): void {
    if (this.#file === undefined) return;
    const state = readStateFile<StateFile>(this.#file);
    for (const group of state?.groups ?? []) this.#groups.set(group.Name, group);
    for (const s of state?.schedules ?? []) this.#schedules.set(`${s.GroupName}/${s.Name}`, s);
  }

  /** Synchronous on purpose: writes happen in mutation order and a response is sent only once its change is saved. */
  #save(): void {
    if (this.#file === undefined) return;
    writeStateFile(this.#file, { groups: [...this.#groups.values()], schedules: [...this.#schedules.values()] });
  }
}
