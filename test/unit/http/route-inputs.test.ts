/**
 * The route input schemas (`shared/http/route-inputs.ts`) and the domain's request schemas: what the handlers read the
 * request with is what the API document describes, and a refusal carries the message the spec words.
 */
import type * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { SenderRequest } from '#shared/domain/email/senders.ts';
import { parseOrThrow } from '#shared/domain/validation.ts';
import { WebhookSubscription } from '#shared/domain/webhooks/manage-webhooks.ts';
import { jsonSchemaOf } from '#shared/http/openapi/json-schema.ts';
import { AppendQuery, DeliveryPageQuery, ExportQuery, FlowActivityQuery } from '#shared/http/route-inputs.ts';

const refusal = (schema: v.GenericSchema, input: unknown) => {
  try {
    parseOrThrow(schema, input);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('accepted');
};

describe('page queries', () => {
  it('hand the use case a number, the default when absent, and no cursor for an empty one', () => {
    expect(parseOrThrow(DeliveryPageQuery, {})).toEqual({ limit: 20 });
    expect(parseOrThrow(DeliveryPageQuery, { limit: '100', cursor: 'abc' })).toEqual({ limit: 100, cursor: 'abc' });
    expect(parseOrThrow(DeliveryPageQuery, { limit: '5', cursor: '' })).toEqual({ limit: 5, cursor: undefined });
  });

  it.each(['0', '101', '2.5', 'ten', ''])('refuse limit=%j with the one message', (limit) => {
    expect(refusal(DeliveryPageQuery, { limit })).toBe('limit must be an integer from 1 to 100');
  });

  it('check the address of the explain view before the page, trimmed and lower-cased', () => {
    expect(parseOrThrow(FlowActivityQuery, { email: ' Ada@Shop.Example ' })).toMatchObject({
      email: 'ada@shop.example',
      limit: 20,
    });
    const message = 'email is required: the address whose flow activity to show';
    expect(refusal(FlowActivityQuery, { limit: '0' })).toBe(message);
    expect(refusal(FlowActivityQuery, { email: 'not-an-address' })).toBe(message);
  });
});

describe('the export and import queries', () => {
  it('read the export query into the use case terms with the spec messages', () => {
    expect(parseOrThrow(ExportQuery, { page: '2', page_size: '10', created_at_start: '5' })).toEqual({
      page: 2,
      pageSize: 10,
      start: 5,
    });
    expect(refusal(ExportQuery, { page_size: '5001' })).toBe('page_size must be at most 5000');
  });

  it('require append=update', () => {
    expect(parseOrThrow(AppendQuery, { append: 'update' })).toEqual({ append: 'update' });
    expect(refusal(AppendQuery, {})).toBe('append must be "update"');
    expect(refusal(AppendQuery, { append: '1' })).toBe('append must be "update"');
  });
});

describe('request bodies', () => {
  it.each([
    ['an array', []],
    ['no topic', { url: 'https://shop.example/hook' }],
    ['an unknown topic', { topic: 'orders/paid', url: 'https://shop.example/hook' }],
  ])('a webhook subscription with %s answers Topic noneffective', (_, body) => {
    expect(refusal(WebhookSubscription, body)).toBe('Topic noneffective');
  });

  it('leaves the URL rules to the use case, a missing URL named as such', () => {
    expect(parseOrThrow(WebhookSubscription, { topic: 'customer/newsletter', url: 42 })).toEqual({
      topic: 'customer/newsletter',
      url: 42,
    });
    expect(refusal(WebhookSubscription, { topic: 'customer/newsletter' })).toBe('url is required');
  });

  it('describe the wire shape the use case checks', () => {
    expect(jsonSchemaOf(WebhookSubscription)).toMatchObject({
      required: ['topic', 'url'],
      properties: { url: { type: 'string', maxLength: 500 } },
    });
    expect(jsonSchemaOf(SenderRequest)).toMatchObject({ properties: { domain: { type: 'string', maxLength: 253 } } });
  });

  it('hand the sender use case the domain in its stored form', () => {
    expect(parseOrThrow(SenderRequest, { domain: ' Mail.Shop.Example. ' })).toEqual({ domain: 'mail.shop.example' });
    expect(refusal(SenderRequest, 'mail.shop.example')).toBe('body must be a JSON object');
  });
});
