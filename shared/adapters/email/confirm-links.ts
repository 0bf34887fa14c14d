/**
 * Builds and reads the confirmation link of a public sign-up: `{PUBLIC_SENDING_URL}/confirm/{token}` on the sending
 * host, signed like the unsubscribe link with a secret of its own derived from the master key (`linkSecret`).
 * Functions that build or verify links need `uses.masterKey`.
 */
import { required } from '#shared/config.ts';
import {
  type ConfirmLinks,
  signConfirmToken,
  verifyConfirmToken,
} from '#shared/domain/contacts/sign-up-confirmation.ts';
import { linkSecret } from './unsubscribe-links.ts';

/** Path of the public confirmation endpoint on the sending host. */
export const CONFIRM_PATH = '/confirm';

const confirmSecret = () => linkSecret('storeflow/confirm-token/v1');

export const confirmLinks = (): ConfirmLinks => ({
  async urlFor(claim) {
    const base = required('publicSendingUrl').replace(/\/+$/, '');
    return `${base}${CONFIRM_PATH}/${signConfirmToken(claim, await confirmSecret())}`;
  },
  async verify(token) {
    return verifyConfirmToken(token, await confirmSecret());
  },
});
