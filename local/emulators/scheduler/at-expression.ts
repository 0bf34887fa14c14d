/** One-time `at()` schedule expressions, read as wall time in the schedule's time zone (as EventBridge Scheduler does). */
import { ApiError } from './api-error.ts';

const AT_PATTERN = /^at\((\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\)$/;
const FIXED_OFFSET_PATTERN = /^(?:UTC|GMT)?([+-])(\d{1,2})(?::?(\d{2}))?$/;

/**
 * Epoch ms of a one-time `at(yyyy-mm-ddThh:mm:ss)` expression read as wall time in `timeZone`.
 * @throws ApiError (ValidationException) for rate()/cron(), a malformed expression or an unknown time zone.
 */
export function parseAtExpression(expression: string, timeZone: string): number {
  if (/^(rate|cron)\(/.test(expression)) {
    throw new ApiError(
      'ValidationException',
      `The local Scheduler emulator supports only one-time at(yyyy-mm-ddThh:mm:ss) expressions, not ${expression}`,
    );
  }
  const match = AT_PATTERN.exec(expression);
  if (!match) throw new ApiError('ValidationException', `Invalid Schedule Expression ${expression}.`);
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as Six<number>;
  const wall = Date.UTC(year, month - 1, day, hour, minute, second);
  // Date.UTC rolls 2025-02-30 over to March; a round trip that changes the fields means the date does not exist.
  if (new Date(wall).toISOString().slice(0, 19) !== expression.slice(3, 22)) {
    throw new ApiError('ValidationException', `Invalid Schedule Expression ${expression}.`);
  }
  let offset: number;
  try {
    // Two passes find the offset in force at the target instant, not at the (possibly DST-shifted) first guess.
    offset = zoneOffsetMs(timeZone, wall - zoneOffsetMs(timeZone, wall));
  } catch {
    throw new ApiError('ValidationException', `Invalid ScheduleExpressionTimezone ${timeZone}.`);
  }
  return wall - offset;
}

type Six<T> = [T, T, T, T, T, T];

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Offset of `timeZone` from UTC at `epochMs` (positive east of Greenwich); throws RangeError for an unknown zone. */
function zoneOffsetMs(timeZone: string, epochMs: number): number {
  const fixed = FIXED_OFFSET_PATTERN.exec(timeZone);
  if (fixed) {
    const minutes = Number(fixed[2]) * 60 + Number(fixed[3] ?? 0);
    if (minutes > 14 * 60) throw new RangeError(`Offset out of range: ${timeZone}`);
    return (fixed[1] === '-' ? -1 : 1) * minutes * 60_000;
  }
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  const parts = Object.fromEntries(formatter.formatToParts(epochMs).map((p) => [p.type, Number(p.value)]));
  const asUtc = Date.UTC(parts.year ?? 0, (parts.month ?? 1) - 1, parts.day, parts.hour, parts.minute, parts.second);
  return asUtc - (epochMs - (((epochMs % 1000) + 1000) % 1000));
}
