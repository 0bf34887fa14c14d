/** The Scheduler emulator's request schema and what it stores (schedules, groups) and answers. */
import * as v from 'valibot';

export const DEFAULT_GROUP = 'default';
export const SQS_ARN_PATTERN = /^arn:aws:sqs:[a-z0-9-]+:\d{12}:([0-9a-zA-Z\-_]{1,80}(?:\.fifo)?)$/;
export const NAME_PATTERN = /^[0-9a-zA-Z\-_.]{1,64}$/;

const Name = v.pipe(v.string(), v.regex(NAME_PATTERN, 'must be 1-64 characters of [0-9a-zA-Z-_.]'));

/** Request body of CreateSchedule and UpdateSchedule (the name travels in the path). Unknown members are dropped. */
export const ScheduleBody = v.object({
  GroupName: v.optional(Name, DEFAULT_GROUP),
  ScheduleExpression: v.string(),
  ScheduleExpressionTimezone: v.optional(v.string()),
  Description: v.optional(v.string()),
  State: v.optional(v.picklist(['ENABLED', 'DISABLED']), 'ENABLED'),
  ActionAfterCompletion: v.optional(v.picklist(['NONE', 'DELETE']), 'NONE'),
  FlexibleTimeWindow: v.object({
    Mode: v.picklist(['OFF', 'FLEXIBLE']),
    MaximumWindowInMinutes: v.optional(v.number()),
  }),
  // Timestamps travel as epoch seconds in REST-JSON.
  StartDate: v.optional(v.number()),
  EndDate: v.optional(v.number()),
  Target: v.object({
    Arn: v.pipe(v.string(), v.regex(SQS_ARN_PATTERN, 'the local emulator only supports SQS queue targets')),
    RoleArn: v.string(),
    Input: v.optional(v.string()),
    SqsParameters: v.optional(v.object({ MessageGroupId: v.optional(v.string()) })),
    RetryPolicy: v.optional(
      v.object({
        MaximumEventAgeInSeconds: v.optional(v.number()),
        MaximumRetryAttempts: v.optional(v.number()),
      }),
    ),
    DeadLetterConfig: v.optional(v.object({ Arn: v.optional(v.string()) })),
  }),
});

type ScheduleFields = v.InferOutput<typeof ScheduleBody>;

/** A stored schedule: the API fields plus two local-only fields that are never returned over the API. */
export interface ScheduleRecord extends ScheduleFields {
  Name: string;
  Arn: string;
  /** Epoch seconds, as the API returns them. */
  CreationDate: number;
  LastModificationDate: number;
  /** Local only: when the `at()` expression is due, in epoch ms. */
  dueAt: number;
  /** Local only: local-clock epoch ms when a schedule kept after completion (`NONE`) fired; it never fires again. */
  firedAt?: number;
}

export interface GroupRecord {
  Name: string;
  Arn: string;
  State: 'ACTIVE';
  CreationDate: number;
  LastModificationDate: number;
}

export interface StateFile {
  groups: GroupRecord[];
  schedules: ScheduleRecord[];
}

/** An HTTP answer for the server to write. */
export interface SchedulerReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}
