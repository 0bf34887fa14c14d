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

const secrets = new Map<string, Promise<Buffer>>();
onReset(() => {
  secrets.clear();
});
/** The signing secret of one kind of link: HMAC of the master key with the kind's label (each kind its own). */
export const linkSecret = (label: string): Promise<Buffer> => {
  let secret = secrets.get(label);
  if (!secret) {
    secret = masterKey()
      .then((key) => createHmac('sha256', key).update(label).digest())
      .catch((error: unknown) => {
        secrets.delete(label);
        throw error;
      });
    secrets.set(label, secret);
  }
  return secret;
};
const unsubscribeSecret = (): Promise<Buffer> => linkSecret('storeflow/unsubscribe-token/v1');

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
