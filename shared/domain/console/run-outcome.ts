/**
 * A run's outcome in a merchant's words, for the console's flow page: the state, and for a run that exited or failed,
 * why, with what to do where there is something to do. The codes (`sending_paused`, …) stay in the API's explain view;
 * an unknown one is shown as it is.
 */
import type { FlowRun } from '#shared/domain/flows/run.ts';

const REASONS: Readonly<Record<string, string>> = {
  sending_paused:
    'marketing email is paused for this store: too many of its emails bounced or were marked as spam (see the ' +
    'sending standing in the sending settings; clean the list, then ask the operator to resume sending)',
  daily_send_cap: "the store's daily cap on marketing email was reached",
  frequency_cap: "the store's frequency cap held this contact's email back",
  no_consent: 'the contact has not agreed to marketing email',
  not_unsubscribed: 'the contact unsubscribed',
  unsubscribed: 'the contact unsubscribed',
  suppressed: 'the address is suppressed (it bounced, complained or unsubscribed before)',
  exit_if: "the flow's exit condition held",
  flow_disabled: 'the flow was disabled',
  send_rejected: 'the email service refused the email',
  waiting_runs_cap: "the store's limit on waiting runs was reached",
  unconfirmed_address:
    "the address came from the storefront's public key, and neither the store's own systems nor the address's owner " +
    '(by the sign-up confirmation email) have confirmed it',
};

/** Why a run ended, in words; the code itself when it has none. */
export const endReasonText = (reason: string): string => REASONS[reason] ?? reason;

/** `completed`, `waiting`, …, or `exited: <why>` / `failed: <why>` for a run that ended early. */
export const runOutcomeText = (run: Pick<FlowRun, 'status' | 'events'>): string => {
  if (run.status !== 'exited' && run.status !== 'failed') return run.status;
  const end = [...run.events].reverse().find((event) => event.type === run.status);
  return end?.reason ? `${run.status}: ${endReasonText(end.reason)}` : run.status;
};
