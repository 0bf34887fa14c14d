/**
 * What may end up in a message header: the one rule of every email this service sends. Two parts, both because a
 * header field with CR or LF in it writes further headers (`Bcc: stolen@evil.example`):
 * - custom headers come from an allow-list (`X-*` except SES's own, and a few list and threading headers), not a
 *   deny-list: a name this service did not think of (`Disposition-Notification-To`, `Resent-To`,
 *   `Authentication-Results`) is refused rather than passed on;
 * - no contact's or merchant's value reaches SES as a line break in a header. Where SES fills the values per recipient
 *   (bulk sends and campaigns: `subject`, `from.name`, `replyTo`, header values are SES templates), each recipient's
 *   values are checked against those templates before anything is sent (`lineBreakInHeaders`): a recipient whose
 *   values put a line break there is refused with the reason `header_line_break` (bulk: rejected; campaigns: skipped),
 *   and the rest of the batch goes. Where this service renders the header itself (a flow email's subject, its
 *   previews), the rendered text is made one line (`oneLine`): CR, LF and the other control characters become spaces.
 *
 * Its twin for HTML parts is `html-escape.ts`.
 */

/** Custom header names the service passes on: `X-` headers and these (case-insensitive). */
const ALLOWED_HEADERS = new Set(
  [
    'list-id',
    'list-help',
    'list-owner',
    'list-archive',
    'list-subscribe',
    'list-post',
    'precedence',
    'auto-submitted',
    'keywords',
    'comments',
    'references',
    'in-reply-to',
  ].map((name) => name.toLowerCase()),
);

/** The allow-list: `X-*` (but never `X-SES-*`, which SES reads) and the names above. */
export const isAllowedCustomHeader = (name: string): boolean => {
  const lower = name.toLowerCase();
  if (lower.startsWith('x-ses-')) return false;
  return lower.startsWith('x-') || ALLOWED_HEADERS.has(lower);
};

export const ALLOWED_CUSTOM_HEADERS_TEXT = `X-* (except X-SES-*), ${[...ALLOWED_HEADERS].join(', ')}`;

const LINE_BREAK = /[\r\n]/;

/** Whether `value` holds CR or LF (what a header field must not). */
export const hasLineBreak = (value: string): boolean => LINE_BREAK.test(value);

/** Control characters (CR, LF, tabs…) would break the header or hide text. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL_RUNS = /[\u0000-\u001f\u007f]+/g;

/** A header this service renders itself, as one line: control characters become spaces, runs of spaces one. */
export const oneLine = (text: string): string =>
  text
    .replace(CONTROL_RUNS, ' ')
    .replace(/\s{2,}/g, ' ')
    .trim();

/** `{{name}}`, `{{{name}}}`, `{{ customer.first_name }}`: a plain substitution and its dotted path. */
const PLACEHOLDER = /{{{?\s*([A-Za-z_$][\w$]*(?:\.[\w$]+)*)\s*}?}}/g;
/** A block or helper (`{{#each}}`, `{{#if}}`): what it prints cannot be traced to one path, so every value counts. */
const BLOCK = /{{\s*[#^/>]/;

const valueAt = (data: Readonly<Record<string, unknown>>, path: string): unknown =>
  path
    .split('.')
    .reduce<unknown>((value, key) => (value && typeof value === 'object' ? (value as never)[key] : undefined), data);

const anyStringWithLineBreak = (value: unknown): boolean =>
  typeof value === 'string'
    ? hasLineBreak(value)
    : value !== null && typeof value === 'object' && Object.values(value).some(anyStringWithLineBreak);

/**
 * The first substitution in a header template whose value for this recipient holds CR or LF (its path, or `*` when a
 * block in the template could print any value); undefined when every header is clean.
 */
export const lineBreakInHeaders = (
  templates: readonly string[],
  data: Readonly<Record<string, unknown>>,
): string | undefined => {
  for (const template of templates) {
    if (!template.includes('{{')) continue;
    if (BLOCK.test(template)) {
      if (anyStringWithLineBreak(data)) return '*';
      continue;
    }
    for (const [, path] of template.matchAll(PLACEHOLDER)) {
      const value = valueAt(data, path as string);
      if (value !== undefined && value !== null && hasLineBreak(String(value))) return path;
    }
  }
  return undefined;
};
