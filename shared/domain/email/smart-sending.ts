/**
 * Smart sending (docs/smart-sending.md): a store's frequency cap on marketing email per contact, across flows
 * and campaigns, and its quiet hours in the recipient's time zone. The settings, their defaults and the two decisions,
 * as pure functions; the flow engine's email step and the campaign walk apply them, the backtest replays them.
 */
import { localMinuteOfDay, minuteOfDayOf, nextWallTime, type RecipientPlace, recipientZone } from './time-zones.ts';

const HOUR_MS = 3600_000;
export const WEEK_MS = 7 * 24 * HOUR_MS;

/** At most one marketing email per contact in `minHoursBetween` hours, and at most `maxPerWeek` in any 7 days. */
export interface FrequencyCap {
  readonly minHoursBetween?: number;
  readonly maxPerWeek?: number;
}

/** The quiet window, wall-clock `HH:MM` in the recipient's zone; `start` after `end` spans midnight (21:00–08:00). */
export interface QuietHours {
  readonly start: string;
  readonly end: string;
}

/** What a store sets (`PUT /api/v1/settings/sending`); each part absent is off (or UTC for the zone). */
export interface SmartSendingSettings {
  /** The store's IANA zone: quiet hours of recipients whose own zone is not known. Default `UTC`. */
  readonly timeZone?: string;
  readonly frequencyCap?: FrequencyCap;
  readonly quietHours?: QuietHours;
  /** Epoch ms of the last change. */
  readonly updatedAt?: number;
}

/** Bounds of the settings (the API refuses values outside them). */
export const SMART_SENDING_LIMITS = {
  minHoursBetween: { min: 1, max: 168 },
  maxPerWeek: { min: 1, max: 50 },
} as const;

export const DEFAULT_TIME_ZONE = 'UTC';

/** How many recent send times a contact's item keeps: enough for the largest weekly cap. */
export const RECENT_SENDS_KEPT = SMART_SENDING_LIMITS.maxPerWeek.max;

/**
 * How far back send times matter: the longest window a cap can have (a week; `minHoursBetween` is at most 168 h).
 */
export const RECENT_SENDS_WINDOW_MS = WEEK_MS;

/** A run waiting for the cap gives up (exits `frequency_cap`) when the cap would still hold it this long after its first wait. */
export const CAP_WAIT_LIMIT_MS = WEEK_MS;

/** The times worth keeping of `times` at `now`: within the window, newest last, at most `RECENT_SENDS_KEPT`. */
export const keptSendTimes = (times: readonly number[], now: number): number[] =>
  times
    .filter((t) => t > now - RECENT_SENDS_WINDOW_MS)
    .sort((a, b) => a - b)
    .slice(-RECENT_SENDS_KEPT);

/** One recent send of a contact: when, and (flow email) which run's step took it. */
export interface RecentSend {
  readonly at: number;
  readonly id?: string;
}

/** The sends worth keeping at `now`, as `keptSendTimes` keeps times. */
export const keptSends = (sends: readonly RecentSend[], now: number): RecentSend[] =>
  sends
    .filter((s) => s.at > now - RECENT_SENDS_WINDOW_MS)
    .sort((a, b) => a.at - b.at)
    .slice(-RECENT_SENDS_KEPT);

export type CapVerdict =
  | { readonly allowed: true }
  | {
      readonly allowed: false;
      /** The rule that holds the email back the longest. */
      readonly rule: 'min_hours_between' | 'max_per_week';
      /** When the email would be allowed (epoch ms), if nothing else is sent meanwhile. */
      readonly until: number;
      /** The last marketing email to the contact (epoch ms). */
      readonly lastSentAt: number;
      /** Marketing emails to the contact in the 7 days before `now`. */
      readonly sentThisWeek: number;
    };

/** Whether the cap lets one more marketing email go to a contact whose recent marketing emails went at `times`. */
export const capVerdict = (cap: FrequencyCap | undefined, times: readonly number[], now: number): CapVerdict => {
  if (!cap) return { allowed: true };
  const recent = keptSendTimes(times, now).filter((t) => t <= now);
  const last = recent[recent.length - 1];
  if (last === undefined) return { allowed: true };
  const blocks: { rule: 'min_hours_between' | 'max_per_week'; until: number }[] = [];
  if (cap.minHoursBetween !== undefined && last + cap.minHoursBetween * HOUR_MS > now) {
    blocks.push({ rule: 'min_hours_between', until: last + cap.minHoursBetween * HOUR_MS });
  }
  if (cap.maxPerWeek !== undefined && recent.length >= cap.maxPerWeek) {
    // Allowed again when the oldest of the last `maxPerWeek` emails leaves the week.
    const oldest = recent[recent.length - cap.maxPerWeek] as number;
    blocks.push({ rule: 'max_per_week', until: oldest + WEEK_MS });
  }
  const longest = blocks.sort((a, b) => b.until - a.until)[0];
  if (!longest) return { allowed: true };
  return { allowed: false, ...longest, lastSentAt: last, sentThisWeek: recent.length };
};

export type QuietVerdict =
  | { readonly quiet: false; readonly timeZone: string; readonly zoneFrom: 'contact' | 'country' | 'store' }
  | {
      readonly quiet: true;
      readonly timeZone: string;
      readonly zoneFrom: 'contact' | 'country' | 'store';
      /** The recipient's wall clock now, `HH:MM`. */
      readonly localTime: string;
      /** The quiet window's end, the sending window's start (epoch ms). */
      readonly until: number;
    };

/** Whether `now` is within the quiet hours for a recipient at `place`, and when the window ends. */
export const quietVerdict = (
  settings: Pick<SmartSendingSettings, 'quietHours' | 'timeZone'>,
  place: RecipientPlace | undefined,
  now: number,
): QuietVerdict | undefined => {
  const { quietHours } = settings;
  if (!quietHours) return undefined;
  const start = minuteOfDayOf(quietHours.start);
  const end = minuteOfDayOf(quietHours.end);
  if (start === undefined || end === undefined || start === end) return undefined;
  const { zone, from } = recipientZone(place, settings.timeZone ?? DEFAULT_TIME_ZONE);
  const minute = localMinuteOfDay(now, zone);
  const quiet = start < end ? minute >= start && minute < end : minute >= start || minute < end;
  if (!quiet) return { quiet: false, timeZone: zone, zoneFrom: from };
  return {
    quiet: true,
    timeZone: zone,
    zoneFrom: from,
    localTime: `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`,
    until: nextWallTime(now, zone, end),
  };
};

/** What a recipient record tells of its place: a zone sent on the customer (`time_zone`), its country. */
export const placeOf = (
  contact:
    | {
        readonly countryCode?: string;
        readonly defaultAddress?: Readonly<Record<string, unknown>>;
        readonly attributes?: Readonly<Record<string, unknown>>;
      }
    | undefined,
): RecipientPlace | undefined => {
  if (!contact) return undefined;
  const attributes = contact.attributes ?? {};
  const timeZone = attributes.time_zone ?? attributes.timezone ?? attributes.timeZone;
  const addressCountry = contact.defaultAddress?.country_code;
  const countryCode = contact.countryCode ?? (typeof addressCountry === 'string' ? addressCountry : undefined);
  return { ...(timeZone !== undefined ? { timeZone } : {}), ...(countryCode ? { countryCode } : {}) };
};

/** The settings as the API shows them: every part present, `null` when off. */
export const settingsRecord = (settings: SmartSendingSettings | undefined) => ({
  timeZone: settings?.timeZone ?? DEFAULT_TIME_ZONE,
  frequencyCap: settings?.frequencyCap ?? null,
  quietHours: settings?.quietHours ?? null,
  ...(settings?.updatedAt !== undefined ? { updatedAt: Math.floor(settings.updatedAt / 1000) } : {}),
});
