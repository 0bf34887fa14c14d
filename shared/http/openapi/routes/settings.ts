/**
 * Store settings on `{base_url}`, `{code, data}` answers: smart sending (docs/smart-sending.md): the store's time zone,
 * its frequency cap on marketing email per contact and its quiet hours.
 */
import * as v from 'valibot';
import { DEFAULT_TIME_ZONE, SMART_SENDING_LIMITS } from '#shared/domain/email/smart-sending.ts';
import { SendingSettingsSchema } from '#shared/domain/stores/sending-settings.ts';
import { ref } from '#shared/http/openapi/components.ts';
import { route } from '#shared/http/openapi/registry.ts';
import { DATA } from '#shared/http/openapi/shapes.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { LIMITS } from '#shared/limits.ts';

const pace = `At most ${LIMITS.webhookManagementPerSecond} calls per second per store.`;
const { minHoursBetween, maxPerWeek } = SMART_SENDING_LIMITS;

const FrequencyCap = v.pipe(
  v.object({
    minHoursBetween: v.optional(
      v.pipe(
        v.number(),
        v.integer(),
        v.description(
          `At most one marketing email per contact in this many hours (${minHoursBetween.min}–${minHoursBetween.max})`,
        ),
      ),
    ),
    maxPerWeek: v.optional(
      v.pipe(
        v.number(),
        v.integer(),
        v.description(
          `At most this many marketing emails per contact in any 7 days (${maxPerWeek.min}–${maxPerWeek.max})`,
        ),
      ),
    ),
  }),
  v.description('Across flows and campaigns; transactional flows are exempt. null: no cap'),
);
const QuietHours = v.pipe(
  v.object({
    start: v.pipe(v.string(), v.description('HH:MM, 24-hour, in the recipient’s zone: the quiet window starts')),
    end: v.pipe(v.string(), v.description('HH:MM: the quiet window ends, the sending window starts')),
  }),
  v.description(
    'Marketing email (flow emails and campaign recipients) due inside the window waits for its end. null: no quiet hours',
  ),
);
const SendingSettings = v.object({
  timeZone: v.pipe(
    v.string(),
    v.description(`The store's IANA zone, for recipients whose own zone is not known (default ${DEFAULT_TIME_ZONE})`),
  ),
  frequencyCap: v.nullable(FrequencyCap),
  quietHours: v.nullable(QuietHours),
  updatedAt: v.optional(v.pipe(v.number(), v.integer(), v.description('Last change, Unix epoch seconds'))),
  sendingStanding: v.pipe(
    v.object({
      state: v.pipe(
        v.picklist(['ok', 'warning', 'paused']),
        v.description(
          'The bounce and complaint guard over the last two days (docs/sending.md): `warning` past SES’s review ' +
            'level (5 % bounces, 0.1 % complaints) on a few events, nothing stopped; `paused` past its pause level ' +
            '(10 %, 0.5 %) on a handful: marketing mail paused, transactional mail goes on',
        ),
      ),
      reason: v.optional(v.pipe(v.string(), v.description('The rate, its count and the level passed (not for ok)'))),
    }),
    v.description('Not a setting: read only, and ignored in a PUT body'),
  ),
});

const ok = webhooksReply.ok(DATA);

export const SETTINGS_ROUTES = {
  'sending-settings-get': route({
    tag: 'Smart sending',
    summary: 'Read the smart-sending settings',
    description:
      "The store's frequency cap, quiet hours and time zone, every part present (`null`: off). A store that never set " +
      `them answers the defaults: no cap, no quiet hours, ${DEFAULT_TIME_ZONE}. ${pace}`,
    api: 'webhooks',
    ok,
    data: ref('SendingSettings', SendingSettings),
    errors: ['rate_limited'],
  }),
  'sending-settings-update': route({
    tag: 'Smart sending',
    summary: 'Replace the smart-sending settings',
    description:
      'Replaces the settings whole: a part left out (or `null`) is off, the zone UTC. Flow and campaign workers apply ' +
      `them within a minute. A body read from GET is accepted (\`updatedAt\` is ignored). ${pace}`,
    api: 'webhooks',
    body: {
      schema: ref('SendingSettingsRequest', SendingSettingsSchema),
      examples: {
        klaviyoLike: {
          timeZone: 'Europe/Paris',
          frequencyCap: { minHoursBetween: 16, maxPerWeek: 5 },
          quietHours: { start: '21:00', end: '08:00' },
        },
      },
    },
    ok,
    data: ref('SendingSettings', SendingSettings),
    errors: ['validation', 'payload_too_large', 'rate_limited'],
    errorMessages: {
      validation: 'timeZone must be an IANA time zone name, such as Europe/Paris or America/New_York',
    },
  }),
};
