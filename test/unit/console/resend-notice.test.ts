/**
 * The console webhooks page's notice after a re-send (`resendNotice` of shared/http/console/webhooks-page.ts), read
 * from the post's redirect: how many deliveries were re-sent, how many were skipped because they changed at the same
 * time (another re-send, the delivery worker), and whether more failed ones remain.
 */
import { describe, expect, it } from 'vitest';
import { MAX_RESENT } from '#shared/domain/console/webhooks-view.ts';
import { resendNotice } from '#shared/http/console/webhooks-page.ts';

describe('the notice after a re-send', () => {
  it('says how many were re-sent and how many were skipped', () => {
    expect(resendNotice({ resent: '2', skipped: '2', more: 'false' })).toBe(
      '2 deliveries re-sent. 2 deliveries were not re-sent: they changed at the same time (re-sent by another ' +
        'request, or being delivered); see the status below.',
    );
    expect(resendNotice({ resent: String(MAX_RESENT), skipped: '1', more: 'true' })).toBe(
      `${MAX_RESENT} deliveries re-sent; more failed since then: re-send again for the rest. 1 delivery was not ` +
        're-sent: it changed at the same time (re-sent by another request, or being delivered); see the status below.',
    );
    expect(resendNotice({ resent: '1', more: 'false' })).toBe('1 delivery re-sent.');
    expect(resendNotice({})).toBeUndefined();
  });

  it('reads a count that is not a positive integer as 0', () => {
    expect(resendNotice({ resent: 'x', skipped: '-3', more: 'false' })).toBe('0 deliveries re-sent.');
    expect(resendNotice({ resent: '1', skipped: '1.5' })).toBe('1 delivery re-sent.');
  });
});
