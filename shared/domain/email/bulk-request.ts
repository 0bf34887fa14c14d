/** The bulk email request (spec "Bulk email request"): its schema and the checks across its fields. */
import * as v from 'valibot';
import { describeIssues } from '#shared/domain/validation.ts';
import { validationError } from '#shared/errors.ts';
import { normalizeAddress, SENDING_LIMITS } from './bulk-model.ts';
import { ALLOWED_CUSTOM_HEADERS_TEXT, hasLineBreak, isAllowedCustomHeader } from './header-values.ts';

const noLineBreak = v.check((value: string) => !hasLineBreak(value), 'must not contain line breaks (CR or LF)');

const JsonObject = v.custom<Record<string, unknown>>(
  (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  'must be an object',
);

const RecipientSchema = v.object({
  address: v.object({
    email: v.string('must be a string'),
    name: v.optional(
      v.pipe(v.string('must be a string'), noLineBreak, v.maxLength(256, 'must be at most 256 characters')),
    ),
    substitutionData: v.optional(JsonObject),
  }),
});

/** The request as a whole (exported for the API description); `parseBulkRequest` adds the checks across fields. */
export const RequestSchema = v.object({
  subject: v.pipe(
    v.string('must be a string'),
    // Before trimming: a line break anywhere, even at an end, is refused rather than silently dropped.
    noLineBreak,
    v.trim(),
    v.minLength(1, 'must not be empty'),
    v.maxLength(998, 'must be at most 998 characters'),
  ),
  preheader: v.optional(v.pipe(v.string('must be a string'), v.maxLength(500, 'must be at most 500 characters'))),
  html: v.optional(v.string('must be a string')),
  text: v.optional(v.string('must be a string')),
  from: v.object({
    name: v.pipe(v.string('must be a string'), v.maxLength(256, 'must be at most 256 characters'), noLineBreak),
    email: v.pipe(v.string('must be a string'), noLineBreak),
  }),
  recipients: v.pipe(
    v.array(RecipientSchema, 'must be an array'),
    v.minLength(1, 'must have at least 1 recipient'),
    v.maxLength(SENDING_LIMITS.recipients, `must have at most ${SENDING_LIMITS.recipients} recipients`),
  ),
  replyTo: v.optional(v.pipe(v.string('must be a string'), noLineBreak)),
  headers: v.optional(v.record(v.string(), v.string('must be a string'))),
  substitutionData: v.optional(JsonObject),
});

export type BulkRequest = v.InferOutput<typeof RequestSchema>;

const HEADER_NAME = /^[A-Za-z0-9][A-Za-z0-9-]{0,75}$/;
/** SES: header values are printable ASCII (and the tab), at most 995 characters. */
const HEADER_VALUE = /^[\t\x20-\x7e]{0,995}$/;

const checkHeaders = (headers: Readonly<Record<string, string>>) => {
  const names = Object.keys(headers);
  if (names.length > SENDING_LIMITS.maxHeaders) {
    throw validationError(`headers must have at most ${SENDING_LIMITS.maxHeaders} entries`);
  }
  for (const [name, value] of Object.entries(headers)) {
    if (hasLineBreak(name) || hasLineBreak(value)) {
      throw validationError(`headers.${JSON.stringify(name)} must not contain line breaks (CR or LF)`);
    }
    if (!HEADER_NAME.test(name)) {
      throw validationError(
        `headers.${JSON.stringify(name)} is not an allowed header name (letters, digits and '-', at most 76 characters)`,
      );
    }
    if (!isAllowedCustomHeader(name)) {
      throw validationError(
        `headers.${name} is not a custom header the service passes on (${ALLOWED_CUSTOM_HEADERS_TEXT})`,
      );
    }
    if (!HEADER_VALUE.test(value)) {
      throw validationError(`headers.${name} must be printable ASCII of at most 995 characters`);
    }
  }
};

const byteLength = (value: unknown) => Buffer.byteLength(JSON.stringify(value ?? null));

/** Checks the request as a whole; throws a validation error naming the field and the rule. */
export const parseBulkRequest = (body: unknown): BulkRequest => {
  const result = v.safeParse(RequestSchema, body);
  if (!result.success) throw validationError(describeIssues(result.issues));
  const request = result.output;
  if (!request.html && !request.text) throw validationError('html or text is required (at least one, not empty)');
  if (request.replyTo && !normalizeAddress(request.replyTo)) throw validationError('replyTo must be an email address');
  if (!normalizeAddress(request.from.email)) throw validationError('from.email must be an email address');
  checkHeaders(request.headers ?? {});
  const content = {
    subject: request.subject,
    preheader: request.preheader,
    html: request.html,
    text: request.text,
    headers: request.headers,
    substitutionData: request.substitutionData,
  };
  if (byteLength(content) > SENDING_LIMITS.maxContentBytes) {
    throw validationError(
      `subject, preheader, html, text, headers and substitutionData together must be at most ${SENDING_LIMITS.maxContentBytes} bytes`,
    );
  }
  request.recipients.forEach((recipient, index) => {
    if (byteLength(recipient.address.substitutionData) > SENDING_LIMITS.maxRecipientDataBytes) {
      throw validationError(
        `recipients[${index}].address.substitutionData must be at most ${SENDING_LIMITS.maxRecipientDataBytes} bytes`,
      );
    }
  });
  return request;
};
