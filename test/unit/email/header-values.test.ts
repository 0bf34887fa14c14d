/** What may reach a message header: the custom-header allow-list and line breaks after substitution. */
import { describe, expect, it } from 'vitest';
import { isAllowedCustomHeader, lineBreakInHeaders } from '#shared/domain/email/header-values.ts';

describe('custom headers', () => {
  it.each(['X-Campaign', 'x-mailer-id', 'List-Id', 'Precedence', 'References'])('passes %s on', (name) => {
    expect(isAllowedCustomHeader(name)).toBe(true);
  });

  it.each([
    'Disposition-Notification-To',
    'Resent-To',
    'Resent-Message-ID',
    'Authentication-Results',
    'DKIM-Signature',
    'Received',
    'Return-Path',
    'X-SES-CONFIGURATION-SET',
    'Bcc',
  ])('refuses %s', (name) => {
    expect(isAllowedCustomHeader(name)).toBe(false);
  });
});

describe('line breaks in header fields after substitution', () => {
  it('names the substitution whose value breaks the line, on any path and spelling', () => {
    expect(lineBreakInHeaders(['Hello {{name}}'], { name: 'Ada\r\nBcc: x@evil.example' })).toBe('name');
    expect(lineBreakInHeaders(['{{{ customer.first }}} here'], { customer: { first: 'A\nB' } })).toBe('customer.first');
    expect(lineBreakInHeaders(['Plain', 'From {{shop}}'], { shop: 'S\r' })).toBe('shop');
  });

  it('treats a block as able to print any value', () => {
    expect(lineBreakInHeaders(['{{#each items}}{{this}}{{/each}}'], { items: ['ok', 'x\ny'] })).toBe('*');
    expect(lineBreakInHeaders(['{{#if vip}}VIP{{/if}}'], { vip: true, other: 'clean' })).toBeUndefined();
  });

  it('leaves clean values, values used only in the body, and missing ones alone', () => {
    expect(lineBreakInHeaders(['Hello {{name}}'], { name: 'Ada', body: 'two\nlines' })).toBeUndefined();
    expect(lineBreakInHeaders(['Hello {{missing}}'], {})).toBeUndefined();
  });
});
