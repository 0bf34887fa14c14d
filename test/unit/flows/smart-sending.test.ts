/**
 * Smart sending (docs/smart-sending.md): the frequency cap's windows, quiet hours in the recipient's zone (DST
 * included), and what the flow engine's email step does with them: skip, wait for the cap, wait for the window.
 */
import { describe, expect, it } from 'vitest';
import { capVerdict, placeOf, quietVerdict, WEEK_MS } from '#shared/domain/email/smart-sending.ts';
import { nextWallTime, recipientZone, wallClockAt } from '#shared/domain/email/time-zones.ts';
import { handleFlowMessage } from '#shared/domain/flows/engine.ts';
import { handleTrigger } from '#shared/domain/flows/enter-run.ts';
import { runIdOf } from '#shared/domain/flows/run.ts';
import { parseSendingSettings } from '#shared/domain/stores/sending-settings.ts';
import { PermanentError } from '#shared/errors.ts';
import { customerOf, emailStep, fakes, flowOf, STORE, triggerOf } from '#test/support/memory/flow-engine.ts';

const H = 3600_000;
const at = (iso: string) => Date.parse(iso);

describe('the frequency cap', () => {
  const now = at('2026-03-10T12:00:00Z');

  it('holds an email within minHoursBetween of the last one, until that many hours after it', () => {
    const verdict = capVerdict({ minHoursBetween: 16 }, [now - 10 * H], now);
    expect(verdict).toEqual({
      allowed: false,
      rule: 'min_hours_between',
      until: now + 6 * H,
      lastSentAt: now - 10 * H,
      sentThisWeek: 1,
    });
    expect(capVerdict({ minHoursBetween: 16 }, [now - 16 * H], now)).toEqual({ allowed: true });
  });

  it('holds the N+1th email of a rolling week until the oldest of the last N leaves it', () => {
    const times = [now - 6 * 24 * H, now - 3 * 24 * H, now - 2 * H];
    const verdict = capVerdict({ maxPerWeek: 3 }, times, now);
    expect(verdict).toMatchObject({ allowed: false, rule: 'max_per_week', until: now - 6 * 24 * H + WEEK_MS });
    expect(capVerdict({ maxPerWeek: 4 }, times, now)).toEqual({ allowed: true });
    // Emails older than a week do not count.
    expect(capVerdict({ maxPerWeek: 1 }, [now - WEEK_MS - 1], now)).toEqual({ allowed: true });
  });

  it('answers the rule that holds the email the longest when both do', () => {
    const times = [now - 5 * 24 * H, now - 1 * H];
    expect(capVerdict({ minHoursBetween: 16, maxPerWeek: 2 }, times, now)).toMatchObject({
      rule: 'max_per_week',
      until: now - 5 * 24 * H + WEEK_MS,
    });
    expect(capVerdict({ minHoursBetween: 16, maxPerWeek: 5 }, times, now)).toMatchObject({
      rule: 'min_hours_between',
      until: now + 15 * H,
    });
  });

  it('lets everything through without a cap or without recent sends', () => {
    expect(capVerdict(undefined, [now - H], now)).toEqual({ allowed: true });
    expect(capVerdict({ minHoursBetween: 16 }, [], now)).toEqual({ allowed: true });
  });
});

describe('quiet hours in the recipient’s zone', () => {
  const settings = { quietHours: { start: '21:00', end: '08:00' }, timeZone: 'America/New_York' };

  it('defers 03:00 in Tokyo (a JP contact) to 08:00 Tokyo', () => {
    const now = at('2026-06-01T18:00:00Z'); // 03:00 JST on June 2
    expect(quietVerdict(settings, { countryCode: 'JP' }, now)).toEqual({
      quiet: true,
      timeZone: 'Asia/Tokyo',
      zoneFrom: 'country',
      localTime: '03:00',
      until: at('2026-06-01T23:00:00Z'),
    });
  });

  it('sends in the day, and treats the window’s end as open and its start as quiet', () => {
    expect(quietVerdict(settings, { countryCode: 'JP' }, at('2026-06-01T23:00:00Z'))).toMatchObject({ quiet: false });
    expect(quietVerdict(settings, { countryCode: 'JP' }, at('2026-06-01T12:00:00Z'))).toMatchObject({
      quiet: true,
      localTime: '21:00',
      until: at('2026-06-01T23:00:00Z'),
    });
  });

  it('uses the store’s zone for a multi-zone country, across the spring-forward night', () => {
    // 2026-03-08 is the US change: 02:00 EST becomes 03:00 EDT. 01:30 EST = 06:30Z; 08:00 EDT = 12:00Z.
    const verdict = quietVerdict(settings, { countryCode: 'US' }, at('2026-03-08T06:30:00Z'));
    expect(verdict).toMatchObject({ quiet: true, timeZone: 'America/New_York', zoneFrom: 'store', localTime: '01:30' });
    expect(verdict?.quiet && verdict.until).toBe(at('2026-03-08T12:00:00Z'));
  });

  it('counts the fall-back night’s hours right (Paris, 25-hour day)', () => {
    // 2026-10-25: 03:00 CEST becomes 02:00 CET. 23:00 CEST on the 24th = 21:00Z; 08:00 CET on the 25th = 07:00Z.
    const verdict = quietVerdict({ ...settings, timeZone: 'Europe/Paris' }, undefined, at('2026-10-24T21:00:00Z'));
    expect(verdict?.quiet && verdict.until).toBe(at('2026-10-25T07:00:00Z'));
  });

  it('ends a window inside a spring-forward gap when the gap ends', () => {
    // Paris 2026-03-29: 02:00 CET jumps to 03:00 CEST (01:00Z). A window ending 02:30 ends at 03:00 local.
    const until = nextWallTime(at('2026-03-28T23:30:00Z'), 'Europe/Paris', 150);
    expect(until).toBe(at('2026-03-29T01:00:00Z'));
    expect(wallClockAt(until, 'Europe/Paris')).toMatchObject({ hour: 3, minute: 0 });
  });

  it('handles a window that does not span midnight', () => {
    const lunch = { quietHours: { start: '12:00', end: '14:00' } };
    expect(quietVerdict(lunch, undefined, at('2026-06-01T13:00:00Z'))).toMatchObject({
      quiet: true,
      timeZone: 'UTC',
      until: at('2026-06-01T14:00:00Z'),
    });
    expect(quietVerdict(lunch, undefined, at('2026-06-01T11:59:00Z'))).toMatchObject({ quiet: false });
  });

  it('takes the contact’s own zone first, then a one-zone country, then the store’s', () => {
    expect(recipientZone({ timeZone: 'America/Denver', countryCode: 'JP' }, 'UTC')).toEqual({
      zone: 'America/Denver',
      from: 'contact',
    });
    expect(recipientZone({ timeZone: 'Mars/Base', countryCode: 'de' }, 'UTC')).toEqual({
      zone: 'Europe/Berlin',
      from: 'country',
    });
    expect(recipientZone({ countryCode: 'AU' }, 'Europe/Paris')).toEqual({ zone: 'Europe/Paris', from: 'store' });
    expect(placeOf(customerOf('c', { attributes: { time_zone: 'Asia/Kolkata' }, countryCode: 'GB' }))).toEqual({
      timeZone: 'Asia/Kolkata',
      countryCode: 'GB',
    });
    expect(placeOf(customerOf('c', { defaultAddress: { country_code: 'FR' } }))).toEqual({ countryCode: 'FR' });
  });
});

describe('the settings a store sends', () => {
  it('keeps what it sets and turns the rest off', () => {
    expect(parseSendingSettings({ frequencyCap: { minHoursBetween: 16 }, quietHours: null })).toEqual({
      frequencyCap: { minHoursBetween: 16 },
    });
  });

  it.each([
    [{ timeZone: 'Europe/Pariss' }, 'timeZone must be an IANA time zone name'],
    [{ frequencyCap: {} }, 'frequencyCap must set minHoursBetween, maxPerWeek or both'],
    [{ frequencyCap: { minHoursBetween: 0 } }, 'frequencyCap.minHoursBetween must be at least 1'],
    [{ frequencyCap: { maxPerWeek: 51 } }, 'frequencyCap.maxPerWeek must be at most 50'],
    [{ quietHours: { start: '9pm', end: '08:00' } }, 'quietHours.start must be a 24-hour time HH:MM'],
    [{ quietHours: { start: '08:00', end: '08:00' } }, 'quietHours.start and quietHours.end must differ'],
    [{ quiet: true }, 'body has an unknown field "quiet"'],
  ])('refuses %j', (body, message) => {
    expect(() => parseSendingSettings(body)).toThrow(message);
  });
});

/** The timer of the run's deferred email fired: the flow worker resumes it at its email step. */
const resume = (f: ReturnType<typeof fakes>, runId: string) =>
  handleFlowMessage(
    { ...f.deps, triggers: { get: async () => undefined } },
    { v: 1, type: 'resume', storeId: STORE, runId, step: 'e1' },
  );

describe('smart sending in the flow engine', () => {
  const NOW = at('2026-06-01T10:00:00Z');
  const marketing = (id: string, extra = {}) =>
    flowOf(id, 'order_paid', { consent: 'not_unsubscribed', reentry: { type: 'once_per_subject' }, ...extra });

  it('skips a marketing email over the cap with its reason, and never a transactional one', async () => {
    const f = fakes();
    f.clock.now = NOW;
    f.smartSending = { frequencyCap: { minHoursBetween: 16 } };
    f.recentSends.set('ada@example.com', [NOW - 2 * H]);
    f.flows.set('fl_promo', marketing('fl_promo'));
    f.flows.set('fl_order', flowOf('fl_order', 'order_paid'));
    const trigger = triggerOf('order_paid');
    await handleTrigger(f.deps, trigger);
    expect(f.runs.get(runIdOf(STORE, 'fl_promo', trigger.id))?.events.at(-1)).toMatchObject({
      type: 'exited',
      reason: 'frequency_cap',
      detail: { stepId: 'e1', rule: 'min_hours_between', minHoursBetween: 16, allowedAt: NOW + 14 * H },
    });
    expect(f.runs.get(runIdOf(STORE, 'fl_order', trigger.id))?.status).toBe('completed');
    expect(f.sent).toHaveLength(1);
    // The transactional email is not counted against the cap.
    expect(f.recentSends.get('ada@example.com')).toEqual([NOW - 2 * H]);
  });

  it('counts each marketing email it sends, so the next trigger’s email within the window is capped', async () => {
    const f = fakes();
    f.clock.now = NOW;
    f.smartSending = { frequencyCap: { minHoursBetween: 16 } };
    f.flows.set('fl_a', marketing('fl_a'));
    const first = triggerOf('order_paid');
    const second = triggerOf('order_paid');
    await handleTrigger(f.deps, first);
    f.clock.now = NOW + 15 * H;
    await handleTrigger(f.deps, second);
    expect(f.runs.get(runIdOf(STORE, 'fl_a', first.id))?.status).toBe('completed');
    expect(f.runs.get(runIdOf(STORE, 'fl_a', second.id))?.events.at(-1)).toMatchObject({
      reason: 'frequency_cap',
      detail: { lastSentAt: NOW, allowedAt: NOW + 16 * H },
    });
    expect(f.sent).toHaveLength(1);
    expect(f.recentSends.get('ada@example.com')).toEqual([NOW]);
  });

  it('lets only one of two marketing flows of one trigger through the cap, though they run at once', async () => {
    const f = fakes();
    f.clock.now = NOW;
    f.smartSending = { frequencyCap: { minHoursBetween: 16 } };
    f.flows.set('fl_a', marketing('fl_a'));
    f.flows.set('fl_b', marketing('fl_b'));
    const trigger = triggerOf('order_paid');
    await handleTrigger(f.deps, trigger);
    const runs = ['fl_a', 'fl_b'].map((id) => f.runs.get(runIdOf(STORE, id, trigger.id)));
    expect(runs.map((run) => run?.status).sort()).toEqual(['completed', 'exited']);
    expect(runs.find((run) => run?.status === 'exited')?.events.at(-1)).toMatchObject({ reason: 'frequency_cap' });
    expect(f.sent).toHaveLength(1);
    expect(f.recentSends.get('ada@example.com')).toEqual([NOW]);
  });

  it('does not cap a retried email by its own place (a transient SES failure, then the queue’s retry)', async () => {
    const f = fakes();
    f.clock.now = NOW;
    f.smartSending = { frequencyCap: { minHoursBetween: 16 } };
    f.flows.set('fl_promo', marketing('fl_promo'));
    f.failures.push(new Error('Throttling'));
    const trigger = triggerOf('order_paid');
    await expect(handleTrigger(f.deps, trigger)).rejects.toThrow('Throttling');
    f.clock.now = NOW + 5_000;
    await handleTrigger(f.deps, trigger);
    expect(f.runs.get(runIdOf(STORE, 'fl_promo', trigger.id))?.status).toBe('completed');
    expect(f.sent).toHaveLength(1);
    expect(f.recentSends.get('ada@example.com')).toEqual([NOW]);
  });

  it('gives the email’s place back when it is not sent after all', async () => {
    const f = fakes();
    f.clock.now = NOW;
    f.smartSending = { frequencyCap: { minHoursBetween: 16 } };
    f.flows.set('fl_bad', marketing('fl_bad'));
    f.failures.push(new PermanentError('rejected by SES'));
    await handleTrigger(f.deps, triggerOf('order_paid'));
    expect(f.recentSends.get('ada@example.com')).toEqual([]);
  });

  it('waits for the cap when the flow says so, and sends when its timer resumes it', async () => {
    const f = fakes();
    f.clock.now = NOW;
    f.smartSending = { frequencyCap: { minHoursBetween: 16 } };
    f.recentSends.set('ada@example.com', [NOW - 2 * H]);
    f.flows.set('fl_wait', marketing('fl_wait', { onFrequencyCap: 'wait' }));
    const trigger = triggerOf('order_paid');
    await handleTrigger(f.deps, trigger);
    const runId = runIdOf(STORE, 'fl_wait', trigger.id);
    const waiting = f.runs.get(runId);
    expect(waiting).toMatchObject({ status: 'waiting', waitingOn: 'e1', waitUntil: NOW + 14 * H, nextStepId: 'e1' });
    expect(waiting?.events.at(-1)).toMatchObject({ type: 'deferred', reason: 'frequency_cap', until: NOW + 14 * H });
    expect(f.timers.at(-1)).toMatchObject({ at: NOW + 14 * H, payload: { kind: 'flow', runId, step: 'e1' } });
    expect(f.sent).toHaveLength(0);

    f.clock.now = NOW + 14 * H;
    await resume(f, runId);
    expect(f.runs.get(runId)?.status).toBe('completed');
    expect(f.sent).toHaveLength(1);
  });

  it('gives up waiting for the cap after a week of waiting', async () => {
    const f = fakes();
    f.clock.now = NOW;
    f.smartSending = { frequencyCap: { maxPerWeek: 1 } };
    f.recentSends.set('ada@example.com', [NOW - H]);
    f.flows.set('fl_wait', marketing('fl_wait', { onFrequencyCap: 'wait' }));
    const trigger = triggerOf('order_paid');
    await handleTrigger(f.deps, trigger);
    const runId = runIdOf(STORE, 'fl_wait', trigger.id);
    expect(f.runs.get(runId)?.status).toBe('waiting');
    // Someone else mails the contact just before the wait ends: the cap would hold it past a week since it began.
    f.clock.now = NOW + WEEK_MS - H;
    f.recentSends.set('ada@example.com', [f.clock.now - 60_000]);
    await resume(f, runId);
    expect(f.runs.get(runId)?.events.at(-1)).toMatchObject({
      type: 'exited',
      reason: 'frequency_cap',
      detail: { waitingSince: NOW },
    });
  });

  it('defers a marketing email due in the quiet hours to the window’s end, in the contact’s zone', async () => {
    const f = fakes();
    f.clock.now = at('2026-06-01T18:00:00Z'); // 03:00 in Tokyo
    f.smartSending = { quietHours: { start: '21:00', end: '08:00' } };
    f.customers.set('c-jp', customerOf('c-jp', { countryCode: 'JP' }));
    f.flows.set('fl_promo', marketing('fl_promo', { steps: [emailStep('e1')] }));
    f.flows.set('fl_order', flowOf('fl_order', 'order_paid'));
    const trigger = triggerOf('order_paid');
    await handleTrigger(f.deps, trigger);
    const run = f.runs.get(runIdOf(STORE, 'fl_promo', trigger.id));
    expect(run).toMatchObject({ status: 'waiting', waitUntil: at('2026-06-01T23:00:00Z') });
    expect(run?.events.at(-1)).toMatchObject({
      type: 'deferred',
      reason: 'quiet_hours',
      detail: { timeZone: 'Asia/Tokyo', zoneFrom: 'country', localTime: '03:00' },
    });
    // Transactional email is exempt: the order message went at once.
    expect(f.sent).toHaveLength(1);
  });
});
