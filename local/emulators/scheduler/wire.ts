/** Reading requests and writing answers of the Scheduler emulator's HTTP API (the AWS JSON protocol's shapes). */
import { ApiError } from './api-error.ts';
import { NAME_PATTERN, type ScheduleRecord, type SchedulerReply } from './model.ts';

export function toApi(record: ScheduleRecord): object {
  const { dueAt: _dueAt, firedAt: _firedAt, ...api } = record;
  return api;
}

export function json(status: number, body: unknown): SchedulerReply {
  return { status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

export function parseBody(body: string): unknown {
  try {
    return body === '' ? {} : JSON.parse(body);
  } catch {
    throw new ApiError('ValidationException', 'Request body is not valid JSON');
  }
}

export function decodeName(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new ApiError('ValidationException', `Invalid name ${raw}`);
  }
}

export function checkName(name: string, field: string): void {
  if (!NAME_PATTERN.test(name)) {
    throw new ApiError('ValidationException', `${field} must be 1-64 characters of [0-9a-zA-Z-_.]`);
  }
}

export function epochSeconds(ms: number): number {
  return ms / 1000;
}
