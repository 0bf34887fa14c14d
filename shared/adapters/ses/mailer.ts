/**
 * The `Mailer` port on SESv2. `send` is one `SendEmail` with simple content (flows hand over rendered messages);
 * `sendBulk` is one `SendBulkEmail` with inline template content, SES filling each entry's `{{var}}` placeholders from
 * its replacement data merged over the default data. Every message carries the configuration set (event publishing)
 * when one is configured, and the caller's tags, so SES events find their store and transmission again.
 *
 * Errors: what a later attempt can fix (throttling, quota, SES 5xx, network) is rethrown as is, so the queue retries;
 * what no retry can fix (rejected message, unverified domain, bad request, suspended or paused sending) becomes a
 * `PermanentError`.
 */
import { domainToASCII } from 'node:url';
import type { MessageHeader, MessageTag, BulkEmailEntryResult as SesBulkResult } from '@aws-sdk/client-sesv2';
import { sendBulkEmail, sendEmail, ses } from '#shared/adapters/ses/client.ts';
import { config } from '#shared/config.ts';
import type { Address, BulkEntryResult, OutboundBulk, OutboundEmail } from '#shared/domain/email/model.ts';
import type { Mailer } from '#shared/domain/email/ports.ts';
import { PermanentError } from '#shared/errors.ts';

const CHARSET = 'UTF-8';

/** SES exceptions no retry can fix. */
const PERMANENT_ERRORS = new Set([
  'MessageRejected',
  'MailFromDomainNotVerifiedException',
  'BadRequestException',
  'AccountSuspendedException',
  'SendingPausedException',
  'NotFoundException',
]);

/** Per-entry statuses of `SendBulkEmail` a later attempt may get through. */
const TRANSIENT_ENTRY_STATUSES = new Set(['ACCOUNT_THROTTLED', 'TRANSIENT_FAILURE', 'ACCOUNT_DAILY_QUOTA_EXCEEDED']);

/** True for an SES error no retry can fix (exported for callers that classify errors they caught themselves). */
export const isPermanentSesError = (error: unknown): boolean => {
  if (!(error instanceof Error)) return false;
  if (PERMANENT_ERRORS.has(error.name)) return true;
  // A 4xx that is not throttling (e.g. an emulator's plain 400) is a bad request too.
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  return (
    status !== undefined &&
    status >= 400 &&
    status < 500 &&
    status !== 429 &&
    !/Throttl|TooMany|Limit/i.test(error.name)
  );
};

const classify = (error: unknown): never => {
  if (isPermanentSesError(error)) {
    const name = error instanceof Error ? error.name : 'Error';
    const message = error instanceof Error ? error.message : String(error);
    throw new PermanentError(`SES refused the message: ${name}: ${message}`, { cause: error });
  }
  throw error;
};

/**
 * `"Display Name" <local@domain>` as SES wants it: the domain in ASCII (IDNA), a printable-ASCII name quoted with `"`
 * and `\` escaped, any other name as an RFC 2047 encoded word (SES refuses raw non-ASCII in address headers).
 */
export const formatAddress = (address: Address): string => {
  const at = address.email.lastIndexOf('@');
  const local = address.email.slice(0, at);
  const domain = address.email.slice(at + 1);
  const email = at > 0 ? `${local}@${domainToASCII(domain) || domain}` : address.email;
  const name = address.name?.replace(/[\r\n]+/g, ' ').trim();
  if (!name) return email;
  if (/^[\x20-\x7e]*$/.test(name)) return `"${name.replace(/(["\\])/g, '\\$1')}" <${email}>`;
  return `=?UTF-8?B?${Buffer.from(name, 'utf8').toString('base64')}?= <${email}>`;
};

/** SES tag names and values allow `[A-Za-z0-9_-]` only, up to 256 characters; anything else is replaced. */
const tagText = (value: string) => value.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 256) || '_';

const toTags = (tags: Readonly<Record<string, string>>): MessageTag[] =>
  Object.entries(tags).map(([name, value]) => ({ Name: tagText(name), Value: tagText(value) }));

const toHeaders = (headers: Readonly<Record<string, string>>): MessageHeader[] =>
  Object.entries(headers).map(([name, value]) => ({ Name: name, Value: value }));

const configurationSet = () => {
  const name = config().sesConfigurationSet;
  return name ? { ConfigurationSetName: name } : {};
};

const replyTo = (addresses: readonly string[] | undefined) =>
  addresses && addresses.length > 0 ? { ReplyToAddresses: [...addresses] } : {};

const entryResult = (result: SesBulkResult | undefined): BulkEntryResult => {
  if (result?.Status === 'SUCCESS' && result.MessageId) return { status: 'sent', messageId: result.MessageId };
  const status = result?.Status ?? 'MISSING';
  const error = result?.Error ? `${status}: ${result.Error}` : status;
  return { status: 'failed', error, permanent: !TRANSIENT_ENTRY_STATUSES.has(status) && status !== 'MISSING' };
};

export const sesMailer = (): Mailer => ({
  async send(message: OutboundEmail) {
    const body = {
      ...(message.html !== undefined ? { Html: { Data: message.html, Charset: CHARSET } } : {}),
      ...(message.text !== undefined ? { Text: { Data: message.text, Charset: CHARSET } } : {}),
    };
    const headers = toHeaders(message.headers);
    try {
      const { MessageId } = await ses().send(
        sendEmail({
          FromEmailAddress: formatAddress(message.from),
          Destination: { ToAddresses: [formatAddress(message.to)] },
          ...replyTo(message.replyTo),
          Content: {
            Simple: {
              Subject: { Data: message.subject, Charset: CHARSET },
              Body: body,
              ...(headers.length > 0 ? { Headers: headers } : {}),
            },
          },
          EmailTags: toTags(message.tags),
          ...configurationSet(),
        }),
      );
      if (!MessageId) throw new Error('SES answered SendEmail without a message id');
      return { messageId: MessageId };
    } catch (error) {
      return classify(error);
    }
  },

  async sendBulk(batch: OutboundBulk) {
    if (batch.entries.length === 0) return [];
    const headers = toHeaders(batch.headers);
    let results: SesBulkResult[];
    try {
      const answer = await ses().send(
        sendBulkEmail({
          FromEmailAddress: formatAddress(batch.from),
          ...replyTo(batch.replyTo),
          DefaultContent: {
            Template: {
              TemplateContent: {
                Subject: batch.subject,
                ...(batch.html !== undefined ? { Html: batch.html } : {}),
                ...(batch.text !== undefined ? { Text: batch.text } : {}),
              },
              TemplateData: JSON.stringify(batch.defaultData),
              ...(headers.length > 0 ? { Headers: headers } : {}),
            },
          },
          BulkEmailEntries: batch.entries.map((entry) => {
            const entryHeaders = toHeaders(entry.headers);
            return {
              Destination: { ToAddresses: [formatAddress(entry.to)] },
              ReplacementEmailContent: {
                ReplacementTemplate: { ReplacementTemplateData: JSON.stringify(entry.data) },
              },
              ...(entryHeaders.length > 0 ? { ReplacementHeaders: entryHeaders } : {}),
            };
          }),
          DefaultEmailTags: toTags(batch.tags),
          ...configurationSet(),
        }),
      );
      results = answer.BulkEmailEntryResults ?? [];
    } catch (error) {
      return classify(error);
    }
    // SES answers one result per entry, in entry order.
    return batch.entries.map((_, index) => entryResult(results[index]));
  },
});
