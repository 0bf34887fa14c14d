/**
 * What may end up in a message header. Two rules, both because a header field with CR or LF in it writes further
 * headers (`Bcc: stolen@evil.example`):
 * - custom headers come from an allow-list (`X-*` except SES's own, and a few list and threading headers), not a
 *   deny-list: a name this service did not think of (`Disposition-Notification-To`, `Resent-To`,
 *   `Authentication-Results`) is refused rather than passed on;
 * - a header field's template (`subject`, `from.name`, `replyTo`, header values) is checked per recipient after
 *   substitution: a recipient whose substitution data puts a line break there is rejected with its reason, and the
 *   rest of the batch goes.
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
    ? LINE_BREAK.test(value)
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
      if (value !== undefined && value !== null && LINE_BREAK.test(String(value))) return path;
    }
  }
  return undefined;
};
