/**
 * The email business metrics: bulk recipients accepted and rejected by reason, SES events by type, each one CloudWatch
 * EMF line with its own dimension (never a store or an address).
 */
import { describe, expect, it } from 'vitest';
import type { SesEvent, SesMail } from '#shared/domain/email/ses-event.ts';
import { countBulkRecipients, countEmailEvent, emailEventType } from '#shared/observability/email-metrics.ts';
import { type Emf, useEmfCapture } from '#test/support/emf.ts';

const { capture, emitted } = useEmfCapture();

const nameOf = (line: Emf) => line._aws.CloudWatchMetrics[0]?.Metrics[0]?.Name;

const mail: SesMail = { messageId: 'm-1', source: 'news@shop.example', destination: ['ada@example.com'], tags: {} };

describe('bulk recipients', () => {
  it('counts the accepted recipients, and the rejected ones per reason', () => {
    capture();
    countBulkRecipients({
      id: 'sb_1',
      totalAccepted: 1995,
      totalRejected: 5,
      rejections: [
        { index: 1, email: 'x', reason: 'invalid_address' },
        { index: 2, email: 'a@example.com', reason: 'duplicate' },
        { index: 3, email: 'b@example.com', reason: 'suppressed' },
        { index: 4, email: 'y', reason: 'invalid_address' },
        { index: 5, email: 'c@example.com', reason: 'suppressed' },
      ],
    });
    const lines = emitted();
    expect(lines.map(nameOf)).toEqual([
      'BulkRecipientsAccepted',
      'BulkRecipientsRejected',
      'BulkRecipientsRejected',
      'BulkRecipientsRejected',
    ]);
    expect(lines[0]).toMatchObject({ BulkRecipientsAccepted: 1995 });
    expect(lines[0]).not.toHaveProperty('reason');
    const rejected = Object.fromEntries(lines.slice(1).map((l) => [l.reason, l.BulkRecipientsRejected]));
    expect(rejected).toEqual({ invalid_address: 2, duplicate: 1, suppressed: 2 });
    // No store id or address in any line.
    expect(lines.map((l) => JSON.stringify(l)).join()).not.toMatch(/example\.com|sb_1/);
  });

  it('writes no rejection line when every recipient is accepted, and no accepted line when none is', () => {
    capture();
    countBulkRecipients({ id: 'sb_2', totalAccepted: 3, totalRejected: 0, rejections: [] });
    expect(emitted().map(nameOf)).toEqual(['BulkRecipientsAccepted']);
    capture();
    countBulkRecipients({
      id: 'sb_3',
      totalAccepted: 0,
      totalRejected: 1,
      rejections: [{ index: 0, email: 'gone@example.com', reason: 'suppressed' }],
    });
    expect(emitted()).toEqual([expect.objectContaining({ reason: 'suppressed', BulkRecipientsRejected: 1 })]);
  });
});

describe('email events', () => {
  const events: [SesEvent, string][] = [
    [{ type: 'delivery', mail, at: 1 }, 'delivery'],
    [{ type: 'bounce', mail, at: 1, bounceType: 'Permanent', bounceSubType: 'General', recipients: [] }, 'bounce'],
    [{ type: 'complaint', mail, at: 1, recipients: [] }, 'complaint'],
    [{ type: 'open', mail, at: 1, userAgent: 'UA' }, 'open'],
    [{ type: 'click', mail, at: 1, userAgent: 'UA', link: 'https://shop.example' }, 'click'],
    [{ type: 'subscription', mail, at: 1, unsubscribed: true }, 'subscription'],
    [{ type: 'reject', mail, at: 1, reason: 'Bad content' }, 'reject'],
    [{ type: 'rendering_failure', mail, at: 1, errorMessage: 'x' }, 'rendering_failure'],
    [{ type: 'ignored', mail, at: 1, eventType: 'Send' }, 'send'],
    [{ type: 'ignored', mail, at: 1, eventType: 'DeliveryDelay' }, 'delivery_delay'],
  ];

  it.each(events.map(([event, type]) => [type, event] as const))('counts an event under type %s', (type, event) => {
    expect(emailEventType(event)).toBe(type);
    capture();
    countEmailEvent(event);
    expect(emitted()).toEqual([expect.objectContaining({ type, EmailEvents: 1 })]);
    expect(JSON.stringify(emitted())).not.toContain('ada@example.com');
  });
});
