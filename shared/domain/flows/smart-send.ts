/**
 * Smart sending for a flow's marketing email (docs/smart-sending.md), as a pure decision: send now, defer (quiet hours
 * in the recipient's zone; the frequency cap when the flow waits for it), or skip (the frequency cap). The email step
 * (`email-step.ts`) carries it out; transactional flows never ask.
 */
import {
  CAP_WAIT_LIMIT_MS,
  capVerdict,
  quietVerdict,
  type SmartSendingSettings,
} from '#shared/domain/email/smart-sending.ts';
import type { RecipientPlace } from '#shared/domain/email/time-zones.ts';
import type { FlowRun } from './run.ts';

export type SmartSendDecision =
  | { readonly kind: 'send' }
  | {
      readonly kind: 'defer';
      readonly reason: 'quiet_hours' | 'frequency_cap';
      readonly until: number;
      readonly detail: Record<string, unknown>;
    }
  | { readonly kind: 'skip'; readonly reason: 'frequency_cap'; readonly detail: Record<string, unknown> };

export interface SmartSendInput {
  readonly settings: SmartSendingSettings | undefined;
  readonly place: RecipientPlace | undefined;
  /** The contact's recent marketing send times (read only when the store has a cap). */
  readonly recentSends: readonly number[];
  readonly onFrequencyCap: 'skip' | 'wait';
  /** When the run first waited for the cap at this step (epoch ms), if it did. */
  readonly waitingForCapSince?: number | undefined;
  readonly now: number;
}

/** Quiet hours first (the email waits for the window either way), then the cap, as of when it would be sent. */
export const smartSendDecision = (input: SmartSendInput): SmartSendDecision => {
  const { settings, now } = input;
  if (!settings) return { kind: 'send' };
  const quiet = quietVerdict(settings, input.place, now);
  if (quiet?.quiet) {
    const { start, end } = settings.quietHours ?? { start: '', end: '' };
    return {
      kind: 'defer',
      reason: 'quiet_hours',
      until: quiet.until,
      detail: {
        timeZone: quiet.timeZone,
        zoneFrom: quiet.zoneFrom,
        localTime: quiet.localTime,
        quietHours: { start, end },
      },
    };
  }
  const cap = capVerdict(settings.frequencyCap, input.recentSends, now);
  if (cap.allowed) return { kind: 'send' };
  const detail = {
    rule: cap.rule,
    ...settings.frequencyCap,
    lastSentAt: cap.lastSentAt,
    sentThisWeek: cap.sentThisWeek,
    allowedAt: cap.until,
  };
  const since = input.waitingForCapSince ?? now;
  if (input.onFrequencyCap === 'wait' && cap.until - since <= CAP_WAIT_LIMIT_MS) {
    return { kind: 'defer', reason: 'frequency_cap', until: cap.until, detail };
  }
  return {
    kind: 'skip',
    reason: 'frequency_cap',
    detail: input.onFrequencyCap === 'wait' ? { ...detail, waitingSince: since } : detail,
  };
};

/** When the run first waited for the cap at `stepId` (its first `deferred` event for it), if it did. */
export const waitingForCapSince = (run: FlowRun, stepId: string): number | undefined =>
  run.events.find((e) => e.type === 'deferred' && e.stepId === stepId && e.reason === 'frequency_cap')?.at;

/**
 * The time a deferred email is judged at: now, but never before the time it was deferred to when this pass resumes it
 * (its timer fired). Deployed, timers never fire early, so this is now; the local runtime's clock advance fires them
 * early on the wall clock, and the email is then judged as of its due time, as it would be had the time passed.
 */
export const decidedAt = (run: FlowRun, stepId: string, now: number): number => {
  const last = run.events[run.events.length - 1];
  if (last?.type !== 'resumed' || last.stepId !== stepId) return now;
  const deferred = run.events.findLast((e) => e.type === 'deferred' && e.stepId === stepId);
  return Math.max(now, deferred?.until ?? now);
};
