/**
 * Business metrics: one CloudWatch EMF line per count, in the stage's namespace, with its own dimensions; and the
 * event interfaces' counting of accepted, duplicate and rejected events.
 */
import { describe, expect, it } from 'vitest';
import { validationError } from '#shared/errors.ts';
import { countingRejections, countOutcome } from '#shared/http/event-metrics.ts';
import { BUSINESS_METRICS, metrics } from '#shared/observability.ts';
import { useEmfCapture } from '#test/support/emf.ts';

const { capture, emitted } = useEmfCapture();

describe('metrics.count', () => {
  it("writes one EMF line in the stage's namespace with the metric's own dimensions", () => {
    capture();
    metrics.count(BUSINESS_METRICS.flowEmailsSkipped, 2, { reason: 'suppressed' });
    metrics.count(BUSINESS_METRICS.flowEmailsSkipped, 1, { reason: 'no_consent' });
    const [first, second] = emitted();
    expect(emitted()).toHaveLength(2);
    expect(first?._aws.CloudWatchMetrics[0]).toMatchObject({
      Namespace: 'Storeflow/test',
      Dimensions: [['service', 'reason']],
      Metrics: [{ Name: 'FlowEmailsSkipped', Unit: 'Count' }],
    });
    expect(first).toMatchObject({ service: 'storeflow', reason: 'suppressed', FlowEmailsSkipped: 2 });
    expect(second).toMatchObject({ reason: 'no_consent', FlowEmailsSkipped: 1 });
  });

  it('writes nothing for a count of zero', () => {
    capture();
    metrics.count(BUSINESS_METRICS.bulkRecipientsRejected, 0);
    expect(emitted()).toEqual([]);
  });
});

describe('event interface metrics', () => {
  it('counts a refused body as rejected and lets the error through', () => {
    capture();
    const parse = countingRejections('general', () => {
      throw validationError('data.email is required');
    });
    expect(() => parse({})).toThrow('data.email is required');
    expect(emitted()[0]).toMatchObject({ interface: 'general', EventsRejected: 1 });
  });

  it('counts nothing for a body that parses, or fails for another reason', () => {
    capture();
    expect(countingRejections('headless', (body) => body)({ ok: true })).toEqual({ ok: true });
    expect(() =>
      countingRejections('headless', () => {
        throw new Error('boom');
      })({}),
    ).toThrow('boom');
    expect(emitted()).toEqual([]);
  });

  it('counts accepted and duplicate events per interface', () => {
    capture();
    expect(countOutcome('headless', 'accepted')).toBe('accepted');
    expect(countOutcome('general', 'duplicate')).toBe('duplicate');
    const [accepted, duplicate] = emitted();
    expect(accepted).toMatchObject({ interface: 'headless', EventsAccepted: 1 });
    expect(duplicate).toMatchObject({ interface: 'general', EventsDuplicate: 1 });
  });
});
