/**
 * Builds the one-click unsubscribe link of a recipient: `{PUBLIC_SENDING_URL}/unsubscribe/{token}` on the sending host.
 * The signing secret is derived from the service master key (HMAC with a fixed label), so it needs no secret of its own
 * and rotates with the master key. Functions that build or verify links need `uses.masterKey`.
 */
import { createHmac } from 'node:crypto';
import { masterKey } from '#shared/adapters/secrets/master-key.ts';
import { required } from '#shared/config.ts';
import {
  signUnsubscribeToken,
  type UnsubscribeClaim,
  verifyUnsubscribeToken,
} from '#shared/domain/email/unsubscribe-token.ts';
import { onReset } from '#shared/lazy.ts';

/** Path of the public unsubscribe endpoint on the sending host. */
export const UNSUBSCRIBE_PATH = '/unsubscribe';

let secret: Promise<Buffer> | undefined;
onReset(() => {
  secret = undefined;
});
const unsubscribeSecret = (): Promise<Buffer> => {
  secret ??= masterKey()
    .then((key) => createHmac('sha256', key).update('storeflow/unsubscribe-token/v1').digest())
    .catch((error: unknown) => {
      secret = undefined;
      throw error;
    });
  return secret;
};

export interface UnsubscribeLinks {
  urlFor(claim: UnsubscribeClaim): Promise<string>;
  verify(token: string): Promise<UnsubscribeClaim | undefined>;
}

export const unsubscribeLinks = (): UnsubscribeLinks => ({
  async urlFor(claim) {
    const base = required('publicSendingUrl').replace(/\/+$/, '');
    return `${base}${UNSUBSCRIBE_PATH}/${signUnsubscribeToken(claim, await unsubscribeSecret())}`;
  },
  async verify(token) {
    return verifyUnsubscribeToken(token, await unsubscribeSecret());
  },
});
