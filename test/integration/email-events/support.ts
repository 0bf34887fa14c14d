/**
 * Helpers of the email-event tests: a mail sent through the real SES adapter to the local SES (and recorded as the
 * send worker records it), simulated SES events through `POST /_local/email-events`, and signed-webhook checks.
 */
import { createHmac } from 'node:crypto';
import { expect } from 'vitest';
import type { LocalRuntime } from '#local/runtime.ts';
import { dynamoSentMessages } from '#shared/adapters/dynamodb/email.repositories.ts';
import { unsubscribeLinks } from '#shared/adapters/email/unsubscribe-links.ts';
import { sesMailer } from '#shared/adapters/ses/mailer.ts';
import { EMAIL_TAGS, listUnsubscribeHeaders } from '#shared/domain/email/model.ts';
import { eventually, queueIsEmpty, type TestStore } from '#test/support/local.ts';
import type { ReceivedRequest } from '#test/support/webhooks.ts';

export const FROM = 'news@shop.example';

export interface SentMail {
  readonly messageId: string;
  readonly transmissionId: string;
  readonly rcptTo: string;
}

let sequence = 0;
/** An id of SES's tag alphabet (`[A-Za-z0-9_-]`), like the batch ids the sending host hands out. */
export const transmissionIdFor = (label: string) =>
  `tx_${label}_${++sequence}_${Math.random().toString(36).slice(2, 8)}`;

/** One mail to `rcptTo` through the SES adapter, recorded like the send worker does after SES accepted it. */
export const sendMail = async (store: TestStore, rcptTo: string, transmissionId = transmissionIdFor('t')) => {
  const url = await unsubscribeLinks().urlFor({ storeId: store.storeId, email: rcptTo, transmissionId });
  const { messageId } = await sesMailer().send({
    from: { email: FROM, name: 'Shop News' },
    to: { email: rcptTo },
    subject: 'Spring sale',
    text: 'Everything is 20% off.',
    html: '<p>Everything is 20% off. <a href="https://shop.example/sale">Shop now</a></p>',
    headers: listUnsubscribeHeaders(url),
    tags: { [EMAIL_TAGS.store]: store.storeId, [EMAIL_TAGS.transmission]: transmissionId, [EMAIL_TAGS.kind]: 'bulk' },
  });
  await dynamoSentMessages().record([
    { messageId, storeId: store.storeId, transmissionId, kind: 'bulk', rcptTo, msgFrom: FROM, sentAt: Date.now() },
  ]);
  return { messageId, transmissionId, rcptTo, unsubscribeUrl: url };
};

/** `POST /_local/email-events` (the body is sent as is when it is a string). */
export const simulate = async (runtime: LocalRuntime, body: unknown) => {
  const response = await fetch(`${runtime.urls.main}/_local/email-events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

/** Simulates an event and expects it queued. */
export const simulated = async (runtime: LocalRuntime, body: Record<string, unknown>) => {
  const answer = await simulate(runtime, body);
  expect(answer, JSON.stringify(body)).toMatchObject({ status: 200, body: { queued: true } });
  return answer.body;
};

/** The webhook's body, after checking the spec's headers and the signature with the store's key. */
export const signedBody = (request: ReceivedRequest, store: TestStore, topic: string): Record<string, unknown> => {
  expect(request.headers['x-service-topic']).toBe(topic);
  expect(request.headers['content-type']).toMatch(/^application\/json/);
  const signature = createHmac('sha256', store.apiKey).update(request.raw).digest('base64');
  expect(request.headers['x-service-hmac-sha256']).toBe(signature);
  return JSON.parse(request.raw.toString('utf8')) as Record<string, unknown>;
};

/**
 * Waits until the email-events and webhook queues hold nothing (twice in a row): every SES event queued so far was
 * handled and every webhook it caused was attempted.
 */
export const emailEventsSettled = async (runtime: LocalRuntime): Promise<void> => {
  for (const queue of ['emailEvents', 'webhooks'] as const) {
    let emptyReadings = 0;
    await eventually(
      `the ${queue} queue to drain`,
      async () => {
        emptyReadings = (await queueIsEmpty(runtime.queueUrls[queue])) ? emptyReadings + 1 : 0;
        return emptyReadings >= 2 ? true : undefined;
      },
      20_000,
    );
  }
};

/** A string of epoch seconds within [from, now]. */
export const epochSecondsSince = (from: number) => ({
  asymmetricMatch: (value: unknown) =>
    typeof value === 'string' &&
    /^\d+$/.test(value) &&
    Number(value) >= Math.floor(from / 1000) - 1 &&
    Number(value) <= Date.now() / 1000 + 1,
  toString: () => 'a string of epoch seconds close to now',
});
