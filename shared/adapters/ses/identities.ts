/**
 * `SendingIdentities` on SESv2: domain identities with Easy DKIM (2048-bit keys), each tagged with the stage that
 * created it (`storeflow:stage`). The tag is what the stage's IAM policy lets it delete (another stage's identity, or
 * the operator's, is out of reach), and what names the other stage when a domain is taken in the same SES account.
 */
import type { DkimAttributes } from '@aws-sdk/client-sesv2';
import { createEmailIdentity, deleteEmailIdentity, getEmailIdentity, ses } from '#shared/adapters/ses/client.ts';
import { STAGE_TAG_KEY } from '#shared/catalog/stage.ts';
import { config } from '#shared/config.ts';
import type { SendingIdentities } from '#shared/domain/email/ports.ts';
import type { IdentityState, SenderStatus } from '#shared/domain/email/sender.ts';

const nameOf = (error: unknown) => (error instanceof Error ? error.name : '');

/** Verified once SES may send for it and its DKIM signature is in place; failed when DKIM verification failed. */
const statusOf = (verifiedForSending: boolean | undefined, dkim: DkimAttributes | undefined): SenderStatus => {
  if (dkim?.Status === 'FAILED') return 'failed';
  if (verifiedForSending && dkim?.Status === 'SUCCESS') return 'verified';
  return 'pending';
};

const read = async (domain: string): Promise<IdentityState | undefined> => {
  try {
    const answer = await ses().send(getEmailIdentity({ EmailIdentity: domain }));
    const stage = answer.Tags?.find((tag) => tag.Key === STAGE_TAG_KEY)?.Value;
    return {
      status: statusOf(answer.VerifiedForSendingStatus, answer.DkimAttributes),
      dkimTokens: answer.DkimAttributes?.Tokens ?? [],
      ...(stage && stage !== config().stage ? { otherStage: stage } : {}),
    };
  } catch (error) {
    if (nameOf(error) === 'NotFoundException') return undefined;
    throw error;
  }
};

export const sesIdentities = (): SendingIdentities => ({
  async create(domain) {
    try {
      const answer = await ses().send(
        createEmailIdentity({
          EmailIdentity: domain,
          DkimSigningAttributes: { NextSigningKeyLength: 'RSA_2048_BIT' },
          Tags: [{ Key: STAGE_TAG_KEY, Value: config().stage }],
        }),
      );
      return {
        status: statusOf(answer.VerifiedForSendingStatus, answer.DkimAttributes),
        dkimTokens: answer.DkimAttributes?.Tokens ?? [],
      };
    } catch (error) {
      if (nameOf(error) !== 'AlreadyExistsException') throw error;
      const existing = await read(domain);
      if (!existing) throw error;
      return { ...existing, preexisting: true };
    }
  },
  get: read,
  async delete(domain) {
    try {
      await ses().send(deleteEmailIdentity({ EmailIdentity: domain }));
    } catch (error) {
      if (nameOf(error) !== 'NotFoundException') throw error;
    }
  },
});
