/**
 * `GET|PUT /api/v1/settings/sending`: a store's smart-sending settings (docs/smart-sending.md): its time zone, the
 * frequency cap on marketing email per contact and the quiet hours. `PUT` replaces them whole: a part left out is off
 * (the zone: UTC). Flow and campaign workers read them with the store record, within a minute of a change.
 */
import * as v from 'valibot';
import type { Clock } from '#shared/domain/clock.ts';
import type { Standing } from '#shared/domain/email/reputation.ts';
import { SMART_SENDING_LIMITS, type SmartSendingSettings, settingsRecord } from '#shared/domain/email/smart-sending.ts';
import { isTimeZone, minuteOfDayOf } from '#shared/domain/email/time-zones.ts';
import { integerBetween, isRecord, known } from '#shared/domain/flows/condition-schema.ts';
import { parseOrThrow } from '#shared/domain/validation.ts';
import { validationError } from '#shared/errors.ts';
import type { Store } from './model.ts';

export interface SendingSettingsDeps {
  readonly stores: {
    get(storeId: string): Promise<Store | undefined>;
    setSmartSending(storeId: string, settings: SmartSendingSettings): Promise<void>;
  };
  readonly clock: Clock;
  /** The bounce and complaint guard's standing of the store (ok, warning, paused), shown beside the settings. */
  readonly standing: (storeId: string) => Promise<Standing>;
}

const timeOfDay = v.pipe(
  v.string('must be a string'),
  v.check((text) => minuteOfDayOf(text) !== undefined, 'must be a 24-hour time HH:MM, such as 21:00'),
);

const { minHoursBetween, maxPerWeek } = SMART_SENDING_LIMITS;

/** The body of `PUT /api/v1/settings/sending`; exported for the API description. */
export const SendingSettingsSchema = known({
  timeZone: v.optional(
    v.nullable(
      v.pipe(
        v.string('must be a string'),
        v.check(
          (zone: string) => isTimeZone(zone),
          'must be an IANA time zone name, such as Europe/Paris or America/New_York',
        ),
      ),
    ),
  ),
  frequencyCap: v.optional(
    v.nullable(
      known({
        minHoursBetween: v.optional(integerBetween(minHoursBetween.min, minHoursBetween.max)),
        maxPerWeek: v.optional(integerBetween(maxPerWeek.min, maxPerWeek.max)),
      }),
    ),
  ),
  quietHours: v.optional(v.nullable(known({ start: timeOfDay, end: timeOfDay }))),
  /** Echoed back from `GET`: ignored. */
  updatedAt: v.optional(v.unknown()),
  /** Echoed back from `GET` (the guard's standing, not a setting): ignored. */
  sendingStanding: v.optional(v.unknown()),
});

/** Reads and checks a `PUT` body (what no schema can say: a cap names a rule, a window is not empty). */
export const parseSendingSettings = (body: unknown): Omit<SmartSendingSettings, 'updatedAt'> => {
  if (!isRecord(body)) throw validationError('body must be a JSON object');
  const parsed = parseOrThrow(SendingSettingsSchema, body);
  const cap = parsed.frequencyCap;
  if (cap && cap.minHoursBetween === undefined && cap.maxPerWeek === undefined) {
    throw validationError('frequencyCap must set minHoursBetween, maxPerWeek or both (null turns the cap off)');
  }
  const quiet = parsed.quietHours;
  if (quiet && quiet.start === quiet.end) {
    throw validationError('quietHours.start and quietHours.end must differ (null turns quiet hours off)');
  }
  return {
    ...(parsed.timeZone ? { timeZone: parsed.timeZone } : {}),
    ...(cap
      ? {
          frequencyCap: {
            ...(cap.minHoursBetween !== undefined ? { minHoursBetween: cap.minHoursBetween } : {}),
            ...(cap.maxPerWeek !== undefined ? { maxPerWeek: cap.maxPerWeek } : {}),
          },
        }
      : {}),
    ...(quiet ? { quietHours: { start: quiet.start, end: quiet.end } } : {}),
  };
};

const storeOf = async (deps: SendingSettingsDeps, storeId: string) => {
  const store = await deps.stores.get(storeId);
  // The caller authenticated with the store's key: a missing store record is a broken invariant, not a 404.
  if (!store) throw new Error(`No store ${storeId}`);
  return store;
};

/** The answer of `GET` and `PUT`: the settings in force, and the guard's standing of the store beside them. */
const settingsAnswer = async (
  deps: SendingSettingsDeps,
  storeId: string,
  settings: SmartSendingSettings | undefined,
) => ({
  ...settingsRecord(settings),
  sendingStanding: await deps.standing(storeId),
});

/** `GET`: the settings in force, every part present (`null`: off). */
export const getSendingSettings = async (deps: SendingSettingsDeps, storeId: string) =>
  settingsAnswer(deps, storeId, (await storeOf(deps, storeId)).smartSending);

/** `PUT`: replaces the settings; answers them as `GET` then would. */
export const putSendingSettings = async (
  deps: SendingSettingsDeps,
  storeId: string,
  settings: Omit<SmartSendingSettings, 'updatedAt'>,
) => {
  await storeOf(deps, storeId);
  const saved: SmartSendingSettings = { ...settings, updatedAt: deps.clock.now() };
  await deps.stores.setSmartSending(storeId, saved);
  return settingsAnswer(deps, storeId, saved);
};
