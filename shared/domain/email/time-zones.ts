/**
 * Time zones for quiet hours (docs/smart-sending.md): whose zone a recipient is in, and wall-clock arithmetic in it,
 * with `Intl` only (IANA names, DST included). Pure functions.
 */

/**
 * Countries with a single IANA time zone (or one zone that nearly everyone lives in), by ISO 3166-1 alpha-2 code. A
 * country with several zones (US, CA, MX, BR, RU, AU, ID, KZ, …) is absent on purpose: its zone is not known from
 * the country, so the store's zone stands in.
 */
export const COUNTRY_ZONES: Readonly<Record<string, string>> = {
  AD: 'Europe/Andorra',
  AE: 'Asia/Dubai',
  AT: 'Europe/Vienna',
  BA: 'Europe/Sarajevo',
  BE: 'Europe/Brussels',
  BG: 'Europe/Sofia',
  BH: 'Asia/Bahrain',
  BY: 'Europe/Minsk',
  CH: 'Europe/Zurich',
  CN: 'Asia/Shanghai',
  CO: 'America/Bogota',
  CR: 'America/Costa_Rica',
  CY: 'Asia/Nicosia',
  CZ: 'Europe/Prague',
  DE: 'Europe/Berlin',
  DK: 'Europe/Copenhagen',
  DZ: 'Africa/Algiers',
  EE: 'Europe/Tallinn',
  EG: 'Africa/Cairo',
  FI: 'Europe/Helsinki',
  FR: 'Europe/Paris',
  GB: 'Europe/London',
  GH: 'Africa/Accra',
  GR: 'Europe/Athens',
  HK: 'Asia/Hong_Kong',
  HR: 'Europe/Zagreb',
  HU: 'Europe/Budapest',
  IE: 'Europe/Dublin',
  IL: 'Asia/Jerusalem',
  IN: 'Asia/Kolkata',
  IS: 'Atlantic/Reykjavik',
  IT: 'Europe/Rome',
  JM: 'America/Jamaica',
  JO: 'Asia/Amman',
  JP: 'Asia/Tokyo',
  KE: 'Africa/Nairobi',
  KR: 'Asia/Seoul',
  KW: 'Asia/Kuwait',
  LB: 'Asia/Beirut',
  LI: 'Europe/Vaduz',
  LT: 'Europe/Vilnius',
  LU: 'Europe/Luxembourg',
  LV: 'Europe/Riga',
  MA: 'Africa/Casablanca',
  MC: 'Europe/Monaco',
  MT: 'Europe/Malta',
  MY: 'Asia/Kuala_Lumpur',
  NG: 'Africa/Lagos',
  NL: 'Europe/Amsterdam',
  NO: 'Europe/Oslo',
  NZ: 'Pacific/Auckland',
  PE: 'America/Lima',
  PH: 'Asia/Manila',
  PK: 'Asia/Karachi',
  PL: 'Europe/Warsaw',
  QA: 'Asia/Qatar',
  RO: 'Europe/Bucharest',
  RS: 'Europe/Belgrade',
  SA: 'Asia/Riyadh',
  SE: 'Europe/Stockholm',
  SG: 'Asia/Singapore',
  SI: 'Europe/Ljubljana',
  SK: 'Europe/Bratislava',
  TH: 'Asia/Bangkok',
  TN: 'Africa/Tunis',
  TR: 'Europe/Istanbul',
  TW: 'Asia/Taipei',
  UA: 'Europe/Kyiv',
  UY: 'America/Montevideo',
  VN: 'Asia/Ho_Chi_Minh',
  ZA: 'Africa/Johannesburg',
};

const formatters = new Map<string, Intl.DateTimeFormat>();

/** A formatter of wall-clock parts in `zone` (cached: building one costs more than formatting). */
const formatterOf = (zone: string): Intl.DateTimeFormat => {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    if (formatters.size >= 1_000) formatters.clear();
    formatters.set(zone, formatter);
  }
  return formatter;
};

/** Whether `zone` is an IANA time zone name this runtime knows (`Europe/Paris`, `UTC`). */
export const isTimeZone = (zone: unknown): zone is string => {
  if (typeof zone !== 'string' || zone === '' || zone.length > 64) return false;
  try {
    formatterOf(zone);
    return true;
  } catch {
    return false;
  }
};

/** The wall clock in `zone` at `at` (epoch ms). */
export interface WallClock {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
}

export const wallClockAt = (at: number, zone: string): WallClock => {
  const parts: Record<string, number> = {};
  for (const part of formatterOf(zone).formatToParts(new Date(at))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year ?? 1970,
    month: parts.month ?? 1,
    day: parts.day ?? 1,
    hour: parts.hour ?? 0,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
  };
};

/** Minutes since local midnight at `at` in `zone` (0–1,439). */
export const localMinuteOfDay = (at: number, zone: string): number => {
  const wall = wallClockAt(at, zone);
  return wall.hour * 60 + wall.minute;
};

/** The zone's offset from UTC at `at`, in ms (Paris in winter: +3,600,000). */
const offsetAt = (at: number, zone: string): number => {
  const wall = wallClockAt(at, zone);
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  return asUtc - (at - (at % 1000));
};

/**
 * The first instant after `after` (epoch ms) at which the wall clock in `zone` shows `minuteOfDay` (today's or the
 * next day's). A time that does not exist that day (it falls in a spring-forward gap) is the instant the gap ends.
 */
export const nextWallTime = (after: number, zone: string, minuteOfDay: number): number => {
  const today = wallClockAt(after, zone);
  for (let dayOffset = 0; dayOffset <= 2; dayOffset++) {
    const wall = Date.UTC(today.year, today.month - 1, today.day + dayOffset, 0, minuteOfDay);
    // The wall time minus the offset in force then; the offset is read twice, as it may change between the guesses.
    const guess = wall - offsetAt(wall - offsetAt(wall, zone), zone);
    const at = guess - (guess % 60_000);
    if (at > after) return localMinuteOfDay(at, zone) === minuteOfDay ? at : gapEnd(at, zone, minuteOfDay);
  }
  // Unreachable for real zones (a day has a `minuteOfDay` within 48 hours): a day later stands in.
  return after + 24 * 3600_000;
};

/** In a spring-forward gap: the instant the gap ends, the first minute at or before `at` right after the jump. */
const gapEnd = (at: number, zone: string, minuteOfDay: number): number => {
  // A minute is "before the target" when the target is less than 12 hours ahead of it on the wall clock.
  const before = (t: number) => {
    const ahead = (minuteOfDay - localMinuteOfDay(t, zone) + 1440) % 1440;
    return ahead > 0 && ahead < 720;
  };
  for (let t = at; t > at - 3 * 3600_000; t -= 60_000) if (before(t - 60_000)) return t;
  return at;
};

/** Where a recipient's zone came from (shown in the explain view). */
export type ZoneSource = 'contact' | 'country' | 'store';

/** What is known of the recipient: a zone it carries (`time_zone` sent on the customer), its country. */
export interface RecipientPlace {
  readonly timeZone?: unknown;
  readonly countryCode?: string | undefined;
}

/**
 * The recipient's zone: its own when it names a known zone, else its country's when the country has one zone, else
 * the store's.
 */
export const recipientZone = (
  place: RecipientPlace | undefined,
  storeZone: string,
): { zone: string; from: ZoneSource } => {
  if (place && isTimeZone(place.timeZone)) return { zone: place.timeZone, from: 'contact' };
  const country = place?.countryCode?.trim().toUpperCase();
  const byCountry = country ? COUNTRY_ZONES[country] : undefined;
  if (byCountry) return { zone: byCountry, from: 'country' };
  return { zone: storeZone, from: 'store' };
};

/** `HH:MM` (24-hour) to minutes since midnight; undefined when it is not one. */
export const minuteOfDayOf = (time: string): number | undefined => {
  const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(time);
  return match ? Number(match[1]) * 60 + Number(match[2]) : undefined;
};

/** Minutes since midnight as `HH:MM`. */
export const timeOfDay = (minutes: number): string =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
