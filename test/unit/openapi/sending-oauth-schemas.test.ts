/**
 * The request schemas of the bulk email and OAuth sign-in operations accept and refuse what the handlers' validators
 * do (`parseBulkRequest`, `parseSignInRequest`), including the rules JSON Schema gets from no valibot action (html or
 * text, no CR/LF, the header rules), and the excluded browser pages say why.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseSignInRequest } from '#shared/domain/accounts/sign-in.ts';
import { parseBulkRequest } from '#shared/domain/email/bulk-request.ts';
import { buildOpenApiDocument } from '#shared/http/openapi/document.ts';
import { EXCLUDED_ROUTES } from '#shared/http/openapi/routes/index.ts';

// biome-ignore lint/suspicious/noExplicitAny: the document is plain JSON walked by path; each assertion checks what it reads.
type Json = Record<string, any>;
let doc: Json;

beforeAll(() => {
  doc = buildOpenApiDocument();
});

const compile = (path: string) => {
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  ajv.addSchema({ $id: 'doc', components: doc.components });
  const schema = doc.paths[path].post.requestBody.content['application/json'].schema;
  return ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/', '"doc#/')));
};

const accepts = (parse: (body: unknown) => unknown, body: unknown) => {
  try {
    parse(body);
    return true;
  } catch {
    return false;
  }
};

const bulk = {
  subject: 'Hello {{name}}',
  html: '<p>Hi</p>',
  from: { name: 'The Shop', email: 'news@mail.shop.example' },
  recipients: [{ address: { email: 'ada@example.com', name: 'Ada', substitutionData: { name: 'Ada' } } }],
};
const recipient = (name: string) => ({ address: { email: 'ada@example.com', name } });

describe('POST /api/v1/sending request schema', () => {
  const cases: [string, unknown, boolean][] = [
    ['a valid request', bulk, true],
    ['text only', { ...bulk, html: undefined, text: 'Hi' }, true],
    ['an empty html beside a text', { ...bulk, html: '', text: 'Hi' }, true],
    ['neither html nor text', { ...bulk, html: undefined }, false],
    ['an empty html alone', { ...bulk, html: '' }, false],
    ['no subject', { ...bulk, subject: undefined }, false],
    ['a blank subject', { ...bulk, subject: '   ' }, false],
    ['a subject with a line break', { ...bulk, subject: 'Hi\r\nBcc: x@example.com' }, false],
    ['a from name with a line break', { ...bulk, from: { ...bulk.from, name: 'Shop\nX' } }, false],
    ['no from name', { ...bulk, from: { email: bulk.from.email } }, false],
    ['a recipient name with a line break', { ...bulk, recipients: [recipient('A\rB')] }, false],
    ['a 257-character recipient name', { ...bulk, recipients: [recipient('n'.repeat(257))] }, false],
    ['no recipients', { ...bulk, recipients: [] }, false],
    ['2,000 recipients', { ...bulk, recipients: Array.from({ length: 2000 }, () => recipient('A')) }, true],
    ['2,001 recipients', { ...bulk, recipients: Array.from({ length: 2001 }, () => recipient('A')) }, false],
    ['a recipient without address', { ...bulk, recipients: [{ email: 'ada@example.com' }] }, false],
    ['substitutionData as an array', { ...bulk, substitutionData: [] }, false],
    ['an allowed extra header', { ...bulk, headers: { 'X-Campaign': 'spring' } }, true],
    ['a header name with a space', { ...bulk, headers: { 'X Campaign': 'spring' } }, false],
    ['a header value with a line break', { ...bulk, headers: { 'X-Campaign': 'a\r\nBcc: b' } }, false],
    ['a non-ASCII header value', { ...bulk, headers: { 'X-Campaign': 'printemps é' } }, false],
    [
      'eleven headers',
      { ...bulk, headers: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`X-H${i}`, 'v'])) },
      false,
    ],
    ['a replyTo with a line break', { ...bulk, replyTo: 'a@example.com\nBcc: b@example.com' }, false],
    ['a 501-character preheader', { ...bulk, preheader: 'p'.repeat(501) }, false],
  ];

  it.each(cases)('%s', (_name, body, expected) => {
    const validate = compile('/api/v1/sending');
    expect(accepts(parseBulkRequest, body), 'the validator').toBe(expected);
    expect(validate(body), 'the document').toBe(expected);
  });

  it('never refuses what the validator accepts: the refused header names are described, not matched', () => {
    const headers = doc.components.schemas.BulkEmailRequest.properties.headers;
    expect(headers.description).toContain('`List-Unsubscribe`');
    expect(headers.description).toContain('`X-SES-*`');
    expect(accepts(parseBulkRequest, { ...bulk, headers: { 'Reply-To': 'a@example.com' } })).toBe(false);
  });
});

describe('POST /api/v1/oauth request schema', () => {
  const cases: [string, unknown, boolean][] = [
    ['username and password', { username: 'alice', password: 'a long password' }, true],
    ['no password', { username: 'alice' }, false],
    ['an empty password', { username: 'alice', password: '' }, false],
    ['an empty username', { username: '', password: 'x' }, false],
    ['a numeric username', { username: 42, password: 'x' }, false],
    ['a 1,025-character password', { username: 'alice', password: 'p'.repeat(1025) }, false],
    ['a 1,024-character password', { username: 'alice', password: 'p'.repeat(1024) }, true],
  ];

  it.each(cases)('%s', (_name, body, expected) => {
    expect(accepts(parseSignInRequest, body), 'the validator').toBe(expected);
    expect(compile('/api/v1/oauth')(body), 'the document').toBe(expected);
  });
});

describe('browser pages', () => {
  it('leaves out the back office and its sign-out (HTML behind a session cookie), with the reason', () => {
    for (const name of ['back-office', 'back-office-sign-out', 'oauth-callback']) {
      expect(EXCLUDED_ROUTES[name], name).toMatch(/HTML|redirect/);
    }
    expect(doc.paths['/back-office']).toBeUndefined();
    expect(doc.paths['/back-office/sign-out']).toBeUndefined();
  });
});
