/** Helpers of the sending tests: calls to the senders (main host) and sending (sending host) routes, the local mail store. */
import type { LocalRuntime } from '#local/runtime.ts';
import type { TestStore } from './local.ts';

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Record<string, unknown>;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * One call; a `429` is waited out and retried (as a well-behaved client does) unless `raw` is set, so tests that are
 * not about the limit do not depend on their own pace.
 */
export const call = async (
  baseUrl: string,
  apiKey: string | undefined,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
  options: { raw?: boolean } = {},
): Promise<Answer> => {
  for (let tries = 0; ; tries++) {
    const headers: Record<string, string> = {};
    if (apiKey !== undefined) headers['x-service-access-token'] = apiKey;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    const answer = {
      status: response.status,
      headers: response.headers,
      body: JSON.parse(await response.text()) as Record<string, unknown>,
    };
    if (answer.status !== 429 || options.raw || tries >= 20) return answer;
    await sleep(Number(response.headers.get('retry-after') ?? '1') * 1000);
  }
};

export const send = (runtime: LocalRuntime, store: TestStore | undefined, body: unknown, options?: { raw?: boolean }) =>
  call(runtime.urls.sending, store?.apiKey, 'POST', '/api/v1/sending', body, options);

export const readBatch = (runtime: LocalRuntime, store: TestStore, id: string) =>
  call(runtime.urls.sending, store.apiKey, 'GET', `/api/v1/sending/${encodeURIComponent(id)}`);

/** Registers a sending domain (locally verified at once), asserting success. */
export const registerDomain = async (runtime: LocalRuntime, store: TestStore, domain: string) => {
  const answer = await call(runtime.urls.main, store.apiKey, 'POST', '/api/v1/senders', { domain });
  if (answer.status !== 200) throw new Error(`registering ${domain}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body.data as {
    domain: string;
    status: string;
    dnsRecords: { type: string; name: string; value: string }[];
  };
};

export interface StoredMail {
  readonly messageId: string;
  readonly from: string;
  readonly replyTo: string[];
  readonly destination: { to: string[] };
  readonly subject: string;
  readonly body: { html?: string; text?: string };
  readonly headers?: { name: string; value: string }[];
}

/** Every mail in the local SES (aws-ses-v2-local's `/store`). */
export const mailStore = async (runtime: LocalRuntime): Promise<StoredMail[]> => {
  const response = await fetch(`${runtime.urls.mail}/store`);
  return ((await response.json()) as { emails: StoredMail[] }).emails;
};

export const recipients = (count: number, domain: string, data?: (i: number) => Record<string, unknown>) =>
  Array.from({ length: count }, (_, i) => ({
    address: { email: `r${i}@${domain}`, name: `Person ${i}`, ...(data ? { substitutionData: data(i) } : {}) },
  }));

export const bulk = (fromDomain: string, overrides: Record<string, unknown> = {}) => ({
  subject: 'Hello {{firstName}}',
  html: '<p>Hi {{firstName}}, your code is {{code}} ({{campaign}})</p>',
  text: 'Hi {{firstName}}, code {{code}}',
  from: { name: 'The Shop', email: `news@${fromDomain}` },
  substitutionData: { campaign: 'spring', code: 'NONE' },
  recipients: recipients(2, 'example.com', (i) => ({ firstName: `P${i}` })),
  ...overrides,
});
