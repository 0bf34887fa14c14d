/**
 * The console's senders page: the store's sending domains with the DNS records to publish and their
 * verification state; registering a domain and checking one again are the API's use cases (`senders.ts`), with their
 * refusals returned as the message to show beside the form.
 */

import type { SenderDeps } from '#shared/domain/email/senders.ts';
import { getSender, listSenders, registerSender, SenderRequest } from '#shared/domain/email/senders.ts';
import { parseOrThrow } from '#shared/domain/validation.ts';
import { isAppError } from '#shared/errors.ts';

export const sendersView = async (deps: SenderDeps, storeId: string) => (await listSenders(deps, storeId)).list;

/** `add` registers the domain; `check` reads its state afresh from SES. Done, or refused with the reason. */
export const senderAction = async (
  deps: SenderDeps,
  storeId: string,
  action: 'add' | 'check',
  domain: string | undefined,
): Promise<{ done: string } | { refused: string }> => {
  try {
    const { domain: checked } = parseOrThrow(SenderRequest, { domain: domain ?? '' });
    const view =
      action === 'add'
        ? await registerSender(deps, storeId, { domain: checked })
        : await getSender(deps, storeId, checked);
    return { done: `${view.domain}: ${view.status}` };
  } catch (error) {
    if (isAppError(error) && (error.kind === 'validation' || error.kind === 'conflict' || error.kind === 'not_found')) {
      return { refused: error.message };
    }
    throw error;
  }
};
