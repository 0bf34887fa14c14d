import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalSentMail } from '#local/emulators/ses-proxy.ts';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { formatAddress, sesMailer } from '#shared/adapters/ses/mailer.ts';
import { EMAIL_TAGS, listUnsubscribeHeaders } from '#shared/domain/email/model.ts';
import { PermanentError } from '#shared/errors.ts';

let runtime: LocalRuntime;
const announced: LocalSentMail[] = [];
beforeAll(async () => {
  runtime = await startLocalRuntime({ gateways: false, pollers: false, logLevel: 'ERROR' });
  runtime.ses.onSent((mails) => {
    announced.push(...mails);
  });
});
afterAll(async () => {
  await runtime?.stop();
});

interface StoredMail {
  messageId: string;
  from: string;
  replyTo: string[];
  destination: { to: string[] };
  subject: string;
  body: { html?: string; text?: string };
  headers?: { name: string; value: string }[];
}

const mailStore = async (): Promise<StoredMail[]> => {
  const response = await fetch(`${runtime.urls.mail}/store`);
  return ((await response.json()) as { emails: StoredMail[] }).emails;
};

const tags = { [EMAIL_TAGS.store]: 'store-1', [EMAIL_TAGS.transmission]: 'tx-1', [EMAIL_TAGS.kind]: 'flow' };

describe('formatAddress', () => {
  it('quotes an ASCII name, encodes any other, and writes an international domain in ASCII', () => {
    expect(formatAddress({ email: 'a@shop.example' })).toBe('a@shop.example');
    expect(formatAddress({ email: 'a@shop.example', name: 'Shop "Best" \\ Co' })).toBe(
      '"Shop \\"Best\\" \\\\ Co" <a@shop.example>',
    );
    expect(formatAddress({ email: 'a@shop.example', name: 'Café' })).toBe(
      `=?UTF-8?B?${Buffer.from('Café').toString('base64')}?= <a@shop.example>`,
    );
    expect(formatAddress({ email: 'a@bücher.example', name: 'B' })).toBe('"B" <a@xn--bcher-kva.example>');
  });
});

describe('SES mailer on the local SES', () => {
  it('sends one message with its headers, reply-to and tags, and answers its message id', async () => {
    const { messageId } = await sesMailer().send({
      from: { email: 'news@shop.example', name: 'The Shop' },
      to: { email: 'ann@example.com', name: 'Ann' },
      replyTo: ['help@shop.example'],
      subject: 'Grüße',
      html: '<p>Hello Ann</p>',
      text: 'Hello Ann',
      headers: listUnsubscribeHeaders('https://send.example/unsubscribe/t1'),
      tags,
    });
    const mail = (await mailStore()).find((m) => m.messageId === messageId);
    expect(mail).toMatchObject({
      from: '"The Shop" <news@shop.example>',
      replyTo: ['help@shop.example'],
      subject: 'Grüße',
      body: { html: '<p>Hello Ann</p>', text: 'Hello Ann' },
    });
    expect(mail?.headers).toEqual([
      { name: 'List-Unsubscribe', value: '<https://send.example/unsubscribe/t1>' },
      { name: 'List-Unsubscribe-Post', value: 'List-Unsubscribe=One-Click' },
    ]);
    expect(announced.find((m) => m.messageId === messageId)).toEqual({
      messageId,
      from: '"The Shop" <news@shop.example>',
      to: ['"Ann" <ann@example.com>'],
      tags,
    });
    expect(runtime.sesCalls().SendEmail).toBeGreaterThanOrEqual(1);
  });

  it('sends a bulk chunk in one call: each entry its own data merged over the defaults, and its own headers', async () => {
    const before = runtime.sesCalls().SendBulkEmail ?? 0;
    const results = await sesMailer().sendBulk({
      from: { email: 'news@shop.example', name: 'The Shop' },
      subject: 'Hi {{name}}',
      html: '<p>{{greeting}} {{name}}, code {{code}}</p>',
      text: '{{greeting}} {{name}}',
      defaultData: { greeting: 'Hello', code: 'NONE' },
      headers: { 'X-Campaign': 'spring' },
      tags: { ...tags, [EMAIL_TAGS.kind]: 'bulk' },
      entries: [
        {
          to: { email: 'b1@example.com', name: 'Bea' },
          data: { name: 'Bea', code: 'B1' },
          headers: { 'X-Entry': '1' },
        },
        { to: { email: 'b2@example.com' }, data: { name: 'Bo' }, headers: { 'X-Entry': '2' } },
      ],
    });
    expect(runtime.sesCalls().SendBulkEmail).toBe(before + 1);
    expect(results.map((r) => r.status)).toEqual(['sent', 'sent']);
    const stored = await mailStore();
    const [first, second] = results.map((r) => stored.find((m) => r.status === 'sent' && m.messageId === r.messageId));
    expect(first).toMatchObject({ subject: 'Hi Bea', body: { html: '<p>Hello Bea, code B1</p>', text: 'Hello Bea' } });
    expect(second).toMatchObject({ subject: 'Hi Bo', body: { html: '<p>Hello Bo, code NONE</p>' } });
    expect(first?.headers).toEqual([
      { name: 'X-Campaign', value: 'spring' },
      { name: 'X-Entry', value: '1' },
    ]);
    const mails = announced.filter((m) => results.some((r) => r.status === 'sent' && r.messageId === m.messageId));
    expect(mails.map((m) => m.to)).toEqual([['"Bea" <b1@example.com>'], ['b2@example.com']]);
    expect(mails[0]?.tags[EMAIL_TAGS.kind]).toBe('bulk');
  });

  it('reports a refused entry as failed in its place, the others sent', async () => {
    const results = await sesMailer().sendBulk({
      from: { email: 'news@shop.example' },
      subject: 'S',
      text: 'T',
      defaultData: {},
      headers: {},
      tags,
      entries: [
        { to: { email: 'ok@example.com' }, data: {}, headers: {} },
        { to: { email: 'not an address' }, data: {}, headers: {} },
      ],
    });
    expect(results[0]?.status).toBe('sent');
    expect(results[1]).toMatchObject({ status: 'failed', permanent: true });
  });

  it('turns a refused request into a PermanentError', async () => {
    await expect(
      sesMailer().send({
        from: { email: 'news@shop.example' },
        to: { email: 'x@example.com' },
        subject: '',
        text: 'no subject',
        headers: {},
        tags,
      }),
    ).rejects.toBeInstanceOf(PermanentError);
  });
});
