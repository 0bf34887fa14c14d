/**
 * The path and query parameters of the routes, as valibot schemas read by the HTTP wrapper (`httpRoute({ path, query
 * })`) and by the API description (`shared/http/openapi/`), so a parameter is declared once. They take the values as
 * strings, as API Gateway hands them over; the use cases apply the rules the spec words (ranges, formats) with its
 * messages.
 */
import * as v from 'valibot';
import { CAMPAIGN_LIMITS } from '#shared/domain/campaigns/model.ts';
import { EXPORT_PAGE_SIZE, parseExportQuery } from '#shared/domain/contacts/export-contacts.ts';
import { SOURCE_ID_MAX_CHARS } from '#shared/domain/events/endpoints.ts';
import { EXPLAIN_PAGE } from '#shared/domain/flows/explain.ts';
import { MAX_UPLOAD_BYTES } from '#shared/domain/imports/model.ts';
import { SEGMENT_MEMBERS_PAGE } from '#shared/domain/segments/manage-segments.ts';
import { specMessage } from '#shared/domain/validation.ts';
import { DELIVERY_PAGE } from '#shared/domain/webhooks/manage-webhooks.ts';

const text = (description: string) => v.pipe(v.string(), v.description(description));
const optionalText = (description: string) => v.optional(text(description));

/** A console page's store: one of those the signed-in account may open. */
export const ConsoleStorePath = v.object({ storeId: text('The store id (`st_…`)') });
export const ConsoleFlowPath = v.object({
  storeId: text('The store id (`st_…`)'),
  flowId: text('The flow id (`fl_…`)'),
});
/**
 * The contact page: a search (none: the form alone), a contact, or a page of results (docs/console.md "Contacts";
 * the matching rules: `shared/domain/contacts/contact-search.ts`).
 */
export const ConsoleContactsQuery = v.object({
  q: optionalText(
    'An email address, phone number or name: read as an address with an `@`, as a phone number when it has only digits, spaces and `+ ( ) . - /`, as a name otherwise',
  ),
  email: optionalText('The email address to look up, any case'),
  phone: optionalText('A phone number, matched exactly once normalised (digits, and a leading `+`)'),
  name: optionalText('The start of a first name, a last name or a whole name, any case and accents'),
  id: optionalText('A contact of the store by its customer id (`id` of its `customers` event)'),
  cursor: optionalText('Opaque: where the previous page of results ended'),
});
/** The new-flow form (`GET` shows it empty). */
export const NewFlowForm = v.object({
  preset: optionalText('The preset (`trigger` of `GET /api/v1/flows/presets`)'),
  from_email: optionalText('The sender address, at a verified domain of the store'),
  from_name: optionalText('The sender name'),
  name: optionalText('The flow name; the preset’s otherwise'),
});
export const ConsoleStepPath = v.object({
  storeId: text('The store id (`st_…`)'),
  flowId: text('The flow id (`fl_…`)'),
  stepId: text('The email step id'),
});
/** The step form: its parts, and which button posted it. */
export const StepForm = v.object({
  subject: optionalText('The subject template'),
  preheader: optionalText('The preheader template'),
  html: optionalText('The HTML body template'),
  text: optionalText('The text body template'),
  revision: optionalText('The flow revision the form was read at: a save on another answers 409'),
  action: v.optional(v.picklist(['preview', 'save'])),
});
/**
 * The flow settings form: `name`, `entry` (a condition group as JSON), `revision` (as read), and per step
 * `wait.<stepId>.amount` / `wait.<stepId>.unit` and `exit.<stepId>` (a condition group as JSON). GET shows it.
 */
export const FlowSettingsForm = v.pipe(
  v.record(v.string(), v.string()),
  v.transform((form) => {
    // Built with fromEntries: a step id such as `__proto__` stays a plain own entry.
    const waits = Object.fromEntries(
      Object.entries(form).flatMap(([name, amount]) => {
        const id = /^wait\.([A-Za-z0-9_-]+)\.amount$/.exec(name)?.[1];
        return id === undefined ? [] : [[id, { amount, unit: form[`wait.${id}.unit`] ?? '' }]];
      }),
    );
    const exits = Object.fromEntries(
      Object.entries(form).flatMap(([name, text]) => {
        const id = /^exit\.([A-Za-z0-9_-]+)$/.exec(name)?.[1];
        return id === undefined ? [] : [[id, text]];
      }),
    );
    const { name, entry, revision } = form;
    return {
      ...(name !== undefined ? { name } : {}),
      ...(entry !== undefined ? { entry } : {}),
      ...(revision !== undefined ? { revision } : {}),
      waits,
      exits,
    };
  }),
);

/** The webhooks page after a re-send: what it did. */
export const ConsoleWebhooksQuery = v.object({
  resent: optionalText('Deliveries the last re-send queued'),
  skipped: optionalText('Deliveries the last re-send left as they were: they changed meanwhile'),
  more: optionalText('`true` when failed deliveries remain to re-send'),
});
/** The webhooks page's re-send forms: one delivery, or a subscription's failed deliveries since a time (UTC). */
export const ResendForm = v.object({
  delivery: optionalText('The delivery to re-send (`dl_…`)'),
  webhook: optionalText('The subscription whose failed deliveries to re-send'),
  since: optionalText('`YYYY-MM-DDTHH:MM`, UTC: failed deliveries created since then'),
});
/** The senders page's forms: add a domain, or check one again. */
export const SenderForm = v.object({
  action: v.optional(v.picklist(['add', 'check'])),
  domain: optionalText('The sending domain'),
});
/** A console list's page: the cursor of older entries. */
export const ConsoleCursorQuery = v.object({ cursor: optionalText('Opaque: where the previous page ended') });
export const ConsoleBatchPath = v.object({
  storeId: text('The store id (`st_…`)'),
  batchId: text('The batch id (`id` of the send answer)'),
});
export const ConsoleSegmentPath = v.object({
  storeId: text('The store id (`st_…`)'),
  segmentId: text('The segment id (`seg_…`)'),
});
export const ConsoleCampaignPath = v.object({
  storeId: text('The store id (`st_…`)'),
  campaignId: text('The campaign id (`cmp_…`)'),
});
/** The flow page's switch: `enabled=true` or `enabled=false`. */
export const FlowStateQuery = v.object({
  enabled: v.pipe(v.picklist(['true', 'false']), v.description('The state to set: `true` or `false`')),
});

export const FlowPath = v.object({
  flowId: text('The flow id (`id` of the flow record, `fl_` and 20 letters and digits)'),
});
export const BacktestJobPath = v.object({
  flowId: text('The flow id (`id` of the flow record, `fl_` and 20 letters and digits)'),
  backtestId: text('The backtest id (`backtestId` of the 202 answer, `bt_` and 20 letters and digits)'),
});
export const WebhookPath = v.object({ webHookId: text('The subscription id (`id` in the list)') });
export const DeliveryPath = v.object({ deliveryId: text('The delivery id (from the deliveries list)') });
export const SenderPath = v.object({
  domain: v.pipe(
    v.string(),
    v.description('The sending domain as registered (any case; international names in either form)'),
    v.examples(['mail.shop.example']),
  ),
});
export const SendBatchPath = v.object({ id: text('The batch id (`id` of the send answer, `sb_…`)') });
export const ImportJobPath = v.object({ jobId: text('The import job id (`jobId`)') });

/** `GET /api/v1/events`: the event by the `source_id` it was sent with. */
export const EventStatusQuery = v.object(
  { source_id: text(`The event's \`source_id\` (1 to ${SOURCE_ID_MAX_CHARS} characters)`) },
  specMessage('source_id is required'),
);

/**
 * A page of a list: `limit` (an integer in the list's range, its default when absent) and the opaque `cursor` of the
 * previous page, handed to the use case as `{ limit: number, cursor?: string }`.
 */
const pageQuery = (page: { readonly default: number; readonly max: number }) => {
  const message = specMessage(`limit must be an integer from 1 to ${page.max}`);
  return {
    limit: v.optional(
      v.pipe(
        v.string(),
        v.description(`Items per page, 1 to ${page.max} (default ${page.default})`),
        v.metadata({ pattern: '^[0-9]+$' }),
        v.transform(Number),
        v.integer(message),
        v.minValue(1, message),
        v.maxValue(page.max, message),
      ),
      String(page.default),
    ),
    cursor: v.optional(
      v.pipe(
        v.string(),
        v.description('The `nextCursor` of the previous page (one of another list answers 400)'),
        // An empty cursor reads as none (the first page).
        v.transform((cursor) => cursor || undefined),
      ),
    ),
  };
};

/** A page of a flow's evaluations and runs. */
export const FlowRunsQuery = v.object(pageQuery(EXPLAIN_PAGE));

export const SegmentPath = v.object({
  segmentId: text('The segment id (`id` of the segment record, `seg_` and 20 letters and digits)'),
});
/** A page of a segment's members (a campaign walks them all with `nextCursor`). */
export const SegmentMembersQuery = v.object(pageQuery(SEGMENT_MEMBERS_PAGE));

export const CampaignPath = v.object({
  campaignId: text('The campaign id (`id` of the campaign record, `cmp_` and 20 letters and digits)'),
});
/** A page of the store's campaigns, newest first. */
export const CampaignListQuery = v.object(pageQuery(CAMPAIGN_LIMITS.listPage));
/** A page of a campaign's recipients, in customer id order. */
export const CampaignRecipientsQuery = v.object(pageQuery(CAMPAIGN_LIMITS.recipientsPage));

/** A page of a subscription's deliveries. */
export const DeliveryPageQuery = v.object(pageQuery(DELIVERY_PAGE));

const EMAIL = /^[^\s@]+@[^\s@]+$/;
const EMAIL_REQUIRED = specMessage('email is required: the address whose flow activity to show');

/** The explain view of one address across the store's flows (the address checked first, then the page). */
export const FlowActivityQuery = v.object(
  {
    email: v.pipe(
      v.string(EMAIL_REQUIRED),
      v.description('The address (any case)'),
      v.metadata({ maxLength: 254 }),
      v.trim(),
      v.toLowerCase(),
      v.minLength(1, EMAIL_REQUIRED),
      v.maxLength(254, EMAIL_REQUIRED),
      v.regex(EMAIL, EMAIL_REQUIRED),
    ),
    ...pageQuery(EXPLAIN_PAGE),
    // The object's own message is the one for its missing key: no `email` at all.
  },
  EMAIL_REQUIRED,
);

const integerText = (description: string) =>
  v.optional(v.pipe(v.string(), v.description(description), v.metadata({ pattern: '^[0-9]+$' })));

/** Spec "Contact export" query, as sent; {@link ExportQuery} reads it. */
export const ExportQueryParameters = v.object({
  page: integerText('1-based page number (default 1); a page past the end has empty `data`'),
  page_size: integerText(
    `Contacts per page, 1 to ${EXPORT_PAGE_SIZE.max} (default ${EXPORT_PAGE_SIZE.default}); above answers 400`,
  ),
  created_at_start: integerText('Inclusive lower bound on contact creation, seconds'),
  created_at_end: integerText('Inclusive upper bound, seconds; below created_at_start answers 400'),
});

/** The export query read into the use case's terms, with the spec's messages (`parseExportQuery`). */
export const ExportQuery = v.pipe(ExportQueryParameters, v.transform(parseExportQuery));

/** Batch import: the spec's `append=update` (the only mode), required. */
const APPEND_UPDATE = specMessage('append must be "update"');
const append = v.pipe(v.picklist(['update'], APPEND_UPDATE), v.description('Must be `update`'));
export const AppendQuery = v.object(
  { append },
  // The object's own message is the one for its missing key: no `append` at all.
  APPEND_UPDATE,
);

const SIZE = specMessage(`size must be the file's size in bytes, an integer from 1 to ${MAX_UPLOAD_BYTES}`);

/** An upload URL: `append=update` and the file's `size`, which the URL is signed for. */
export const UploadQuery = v.object(
  {
    append,
    size: v.pipe(
      v.string(SIZE),
      v.description(
        `The file's size in bytes (at most ${MAX_UPLOAD_BYTES}): the URL takes a PUT of exactly this length`,
      ),
      v.metadata({ pattern: '^[0-9]+$' }),
      v.transform(Number),
      v.integer(SIZE),
      v.minValue(1, SIZE),
      v.maxValue(MAX_UPLOAD_BYTES, SIZE),
    ),
  },
  (issue) => (issue.expected === '"size"' ? SIZE : APPEND_UPDATE),
);

/** The single-use sign-in link's token. */
export const SignInTokenQuery = v.object({ token: optionalText('The single-use token of the sign-in link') });

/** The names and descriptions of an object schema's entries, as the API description's parameters. */
export const parametersOf = (
  schema: v.ObjectSchema<v.ObjectEntries, v.ErrorMessage<v.ObjectIssue> | undefined>,
): Record<string, { description: string; required: boolean; schema: v.GenericSchema }> =>
  Object.fromEntries(
    Object.entries(schema.entries).map(([name, entry]) => {
      const optional = entry.type === 'optional';
      const inner = optional ? (entry as v.OptionalSchema<v.GenericSchema, unknown>).wrapped : entry;
      return [name, { description: v.getDescription(inner) ?? name, required: !optional, schema: inner }];
    }),
  );

/** Attribution stats: a range of UTC days (`parseStatsRange` applies the rules). */
export const StatsQuery = v.object({
  from: optionalText('First day, `YYYY-MM-DD` (UTC); default 29 days before `to`'),
  to: optionalText('Last day, `YYYY-MM-DD` (UTC), inclusive; default today; at most 366 days in all'),
});
