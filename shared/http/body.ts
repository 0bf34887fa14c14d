/**
 * Reading a request body: the size limit, the content type, and for JSON the nesting depth and the values DynamoDB
 * cannot store, all refused with the interface's validation error before any handler sees the body.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { isAppError, payloadTooLarge, validationError } from '#shared/errors.ts';
import { checkJsonValue, exceedsJsonDepth, MAX_JSON_DEPTH } from '#shared/json-rules.ts';

/** The JSON body: content type, size, depth and the values this service cannot keep are checked before use. */
export const readJsonBody = (event: APIGatewayProxyEventV2, maxBytes: number): unknown => {
  const raw = event.body ? Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
  if (raw.byteLength > maxBytes) throw payloadTooLarge(maxBytes);
  const contentType = event.headers['content-type'] ?? '';
  if (!/^application\/json\s*(;|$)/i.test(contentType)) {
    throw validationError('Content-Type must be application/json');
  }
  if (raw.byteLength === 0) throw validationError('body is required: a JSON object');
  const text = utf8Text(raw);
  if (exceedsJsonDepth(text, MAX_JSON_DEPTH)) {
    throw validationError(`body is nested too deeply: at most ${MAX_JSON_DEPTH} levels of objects and arrays`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text, checkJsonValue);
  } catch (error) {
    if (isAppError(error)) throw error;
    throw validationError('body is not valid JSON');
  }
  return parsed;
};

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The body as text, refusing bytes that are not UTF-8: JSON text is UTF-8 (RFC 8259 §8.1), and decoding them leniently
 * would store replacement characters, data other than what was sent.
 */
const utf8Text = (raw: Buffer): string => {
  try {
    return strictUtf8.decode(raw);
  } catch {
    throw validationError('body is not valid UTF-8 (JSON text must be UTF-8)');
  }
};

/**
 * An HTML form's body (`application/x-www-form-urlencoded`, what a console form posts) as its fields: the first value
 * of each name, the size limit and UTF-8 checked as for JSON.
 */
export const readFormBody = (event: APIGatewayProxyEventV2, maxBytes: number): Record<string, string> => {
  const raw = event.body ? Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
  if (raw.byteLength > maxBytes) throw payloadTooLarge(maxBytes);
  const contentType = event.headers['content-type'] ?? '';
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(contentType)) {
    throw validationError('Content-Type must be application/x-www-form-urlencoded');
  }
  const fields = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(utf8Text(raw))) if (!fields.has(name)) fields.set(name, value);
  return Object.fromEntries(fields);
};

/**
 * A `multipart/form-data` body (the batch import's file upload). Its parser (busboy) is loaded by the first such body:
 * only the import route takes one, and every other function would pay for it at cold start (init CPU).
 */
export const readMultipartBody = async (event: APIGatewayProxyEventV2, maxBytes: number) => {
  const contentType = event.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\s*;/i.test(contentType)) {
    throw validationError('Content-Type must be multipart/form-data');
  }
  const raw = event.body ? Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
  const { parseMultipart } = await import('./multipart.ts');
  return parseMultipart(contentType, raw, maxBytes);
};
