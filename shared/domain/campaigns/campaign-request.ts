/**
 * The campaign as `POST /api/v1/campaigns` accepts it (docs/campaigns.md): a name, the segments to send to and those
 * to leave out, the sender, the email's Liquid parts, and when. Messages read after a field path, as the flows' and
 * segments' do; unknown fields are refused and named.
 */
import * as v from 'valibot';
import { known, line } from '#shared/domain/flows/condition-schema.ts';
import { parseOrThrow } from '#shared/domain/validation.ts';
import { validationError } from '#shared/errors.ts';
import { CAMPAIGN_LIMITS } from './model.ts';

const SEGMENT_ID = /^seg_[A-Za-z0-9]{20}$/;
const segmentIds = (max: number, min: number) =>
  v.pipe(
    v.array(
      v.pipe(
        v.string('must be a string'),
        v.regex(SEGMENT_ID, 'must be a segment id (seg_ and 20 letters and digits)'),
      ),
      'must be an array of segment ids',
    ),
    v.minLength(min, `must name at least ${min} segment`),
    v.maxLength(max, `must name at most ${max} segments`),
  );

/** The request body (exported for the API description). */
export const CampaignRequestSchema = known({
  name: v.pipe(line(100), v.trim(), v.nonEmpty('must not be empty')),
  segments: segmentIds(CAMPAIGN_LIMITS.segments, 1),
  excludeSegments: v.optional(segmentIds(CAMPAIGN_LIMITS.excludeSegments, 0)),
  from: known({
    email: v.pipe(line(254), v.trim(), v.email('must be an email address')),
    name: v.pipe(line(256), v.trim()),
  }),
  replyTo: v.optional(v.pipe(line(254), v.trim(), v.email('must be an email address'))),
  subject: v.pipe(line(998), v.trim(), v.nonEmpty('must not be empty')),
  preheader: v.optional(v.pipe(v.string('must be a string'), v.maxLength(500, 'must be at most 500 characters'))),
  html: v.optional(v.string('must be a string')),
  text: v.optional(v.string('must be a string')),
  sendAt: v.optional(
    v.pipe(
      v.string('must be a string'),
      v.isoTimestamp('must be an ISO 8601 time with a zone, e.g. 2026-12-01T09:00:00Z'),
    ),
  ),
  /** Creates the campaign even when its segments have no members yet (otherwise 422). */
  allowEmptyAudience: v.optional(v.boolean('must be true or false')),
});

export interface CampaignRequest {
  readonly name: string;
  readonly segments: readonly string[];
  readonly excludeSegments: readonly string[];
  readonly from: { readonly email: string; readonly name: string };
  readonly replyTo?: string;
  readonly subject: string;
  readonly preheader?: string;
  readonly html?: string;
  readonly text?: string;
  /** Epoch ms; absent: now. */
  readonly sendAt?: number;
  /** Create it even when its segments have no members (a segment that will fill before `sendAt`). */
  readonly allowEmptyAudience?: boolean;
}

/** Reads a `POST /campaigns` body; throws the validation error naming the field and the rule. */
export const parseCampaignRequest = (body: unknown): CampaignRequest => {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw validationError('body must be a JSON object');
  }
  const parsed = parseOrThrow(CampaignRequestSchema, body);
  if (!parsed.html && !parsed.text) throw validationError('html or text is required (at least one, not empty)');
  const excludeSegments = parsed.excludeSegments ?? [];
  const both = parsed.segments.find((id) => excludeSegments.includes(id));
  if (both) throw validationError(`excludeSegments names ${both}, which segments names too`);
  return {
    name: parsed.name,
    segments: [...new Set(parsed.segments)],
    excludeSegments: [...new Set(excludeSegments)],
    from: parsed.from,
    ...(parsed.replyTo ? { replyTo: parsed.replyTo } : {}),
    subject: parsed.subject,
    ...(parsed.preheader !== undefined ? { preheader: parsed.preheader } : {}),
    ...(parsed.html ? { html: parsed.html } : {}),
    ...(parsed.text ? { text: parsed.text } : {}),
    ...(parsed.sendAt !== undefined ? { sendAt: Date.parse(parsed.sendAt) } : {}),
    ...(parsed.allowEmptyAudience ? { allowEmptyAudience: true } : {}),
  };
};
