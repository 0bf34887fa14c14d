/**
 * The typed client (shared/client) as the tests use it: every answer is checked against the OpenAPI document's schema
 * for its operation and status (Ajv, JSON Schema 2020-12), so a test that calls the API through it also proves the
 * document describes what the API really answers. A mismatch fails the call with the operation, status and errors.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { Middleware } from 'openapi-fetch';
import type { LocalRuntime } from '#local/runtime.ts';
import { createStoreflowClient, type StoreflowClient } from '#shared/client/index.ts';
import { buildOpenApiDocument } from '#shared/http/openapi/document.ts';

type ResponseObject = { content?: Record<string, { schema?: unknown }> };
type OperationObject = { responses?: Record<string, ResponseObject> };

const document = buildOpenApiDocument() as {
  paths: Record<string, Record<string, OperationObject>>;
  components: { schemas: Record<string, unknown> };
};

// `discriminator`, `examples` and `contentMediaType` are OpenAPI annotations Ajv need not know; formats are not checked.
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
ajv.addSchema({ $id: 'storeflow', components: document.components });

const validators = new Map<string, ValidateFunction | null>();

/** The compiled schema of an operation's JSON answer for `status`, or null when it documents none. */
const validatorFor = (schemaPath: string, method: string, status: number): ValidateFunction | null => {
  const key = `${method} ${schemaPath} ${status}`;
  if (!validators.has(key)) {
    const responses = document.paths[schemaPath]?.[method.toLowerCase()]?.responses;
    if (!responses) throw new Error(`${method} ${schemaPath} is not in the OpenAPI document`);
    const response = responses[String(status)] ?? responses.default;
    if (!response) throw new Error(`${method} ${schemaPath} answered ${status}, which the OpenAPI document omits`);
    const schema = response.content?.['application/json']?.schema;
    // Refs point into the registered document (`storeflow#/components/...`).
    const rebased = schema === undefined ? null : JSON.parse(JSON.stringify(schema).replaceAll('"#/', '"storeflow#/'));
    validators.set(key, rebased === null ? null : ajv.compile(rebased));
  }
  return validators.get(key) ?? null;
};

/** Checks each JSON answer against the document; throws on a status or body the document does not describe. */
export const conformance: Middleware = {
  onResponse: async ({ response, schemaPath, request }) => {
    if (response.status === 304) return undefined;
    const validate = validatorFor(schemaPath, request.method, response.status);
    if (!validate) return undefined;
    const body: unknown = await response.clone().json();
    if (!validate(body)) {
      throw new Error(
        `${request.method} ${schemaPath} answered ${response.status} with a body the OpenAPI document does not ` +
          `describe: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`,
      );
    }
    return undefined;
  },
};

/** The typed client for a store of the local runtime, checking every answer against the document. */
export const apiClient = (runtime: LocalRuntime, apiKey?: string): StoreflowClient =>
  createStoreflowClient({
    mainUrl: runtime.urls.main,
    frontUrl: runtime.urls.front,
    sendingUrl: runtime.urls.sending,
    ...(apiKey ? { apiKey } : {}),
    middleware: [conformance],
  });

/** One call through the client; a 429 is waited out as its Retry-After says (for tests that are not about the limit). */
export const patient = async <T extends { response: Response }>(call: () => Promise<T>): Promise<T> => {
  for (let tries = 0; ; tries++) {
    const answer = await call();
    if (answer.response.status !== 429 || tries >= 20) return answer;
    await new Promise((resolve) => setTimeout(resolve, Number(answer.response.headers.get('retry-after') ?? 1) * 1000));
  }
};
