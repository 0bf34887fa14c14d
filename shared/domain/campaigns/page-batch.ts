/**
 * The send batches of a campaign's page (docs/campaigns.md): the page's batch, queued at once, and the batches of its
 * recipients held for their quiet hours, one per release minute (docs/smart-sending.md). Every id is derived from the
 * campaign, the page and (held ones) the minute, so a repeated page finds its batches and writes none twice.
 */
import { createHash } from 'node:crypto';
import type { Customer } from '#shared/domain/customers/model.ts';
import { planChunks, type SendBatch, type SendRecipient } from '#shared/domain/email/bulk-model.ts';
import { hasLineBreak, lineBreakInHeaders } from '#shared/domain/email/header-values.ts';
import { htmlPart, recipientData } from './content.ts';
import type { Campaign, CampaignRecipient } from './model.ts';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

const batchIdOf = (seed: string): string => {
  const digest = createHash('sha256').update(seed).digest();
  return `sb_${[...digest.subarray(0, 20)].map((byte) => BASE62[byte % 62]).join('')}`;
};

/** The send batch of a campaign's page: the same id on every attempt of the page (`sb_`, 20 of SES's tag alphabet). */
export const pageBatchId = (campaignId: string, page: number): string => batchIdOf(`${campaignId}#${page}`);

/** The send batch of a page's recipients held until `minute` (epoch ms): the same id on every attempt of the page. */
export const heldBatchId = (campaignId: string, page: number, minute: number): string =>
  batchIdOf(`${campaignId}#${page}#held#${minute}`);

const fullName = (first?: string, last?: string) => [first, last].filter(Boolean).join(' ').trim();

/**
 * Whether a recipient's values would put CR or LF into a header of the campaign's email: the subject, sender name and
 * reply-to address as SES fills them (the bulk path's check, `email/header-values.ts`), or the `To:` name made of the
 * contact's names. The walk skips such a recipient (`header_line_break`) rather than hand it to the send path.
 */
export const headerLineBreak = (
  campaign: Pick<Campaign, 'template' | 'from' | 'replyTo'>,
  contact: Customer | undefined,
  email: string,
): boolean =>
  hasLineBreak(fullName(contact?.firstName, contact?.lastName)) ||
  lineBreakInHeaders(
    [campaign.template.subject, campaign.from.name, campaign.replyTo ?? ''],
    recipientData(contact, email),
  ) !== undefined;

/**
 * The send batch `id` of `recipients` (queued or deferred records of the page, with their contacts), its chunks
 * numbered from `chunkOffset` among the page's chunks.
 */
export const campaignSendBatch = (
  campaign: Campaign,
  id: string,
  recipients: readonly CampaignRecipient[],
  contacts: ReadonlyMap<string, Customer | undefined>,
  createdAt: number,
  chunkOffset = 0,
): { batch: SendBatch; recipients: SendRecipient[] } => {
  // The HTML part names each contact field's escaped copy (`content.ts`); the subject and text part the field itself.
  const html = campaign.template.html === undefined ? undefined : htmlPart(campaign.template.html);
  const sendRecipients = recipients.map((r): SendRecipient => {
    const contact = contacts.get(r.customerId);
    const name = fullName(contact?.firstName, contact?.lastName);
    return {
      index: r.index as number,
      email: r.email as string,
      ...(name ? { name } : {}),
      substitutionData: recipientData(contact, r.email as string, html),
      status: 'queued',
    };
  });
  const batch: SendBatch = {
    storeId: campaign.storeId,
    id,
    campaignId: campaign.id,
    campaignPage: campaign.walkPage,
    ...(chunkOffset > 0 ? { campaignChunkOffset: chunkOffset } : {}),
    createdAt,
    from: campaign.from,
    replyTo: campaign.replyTo ?? campaign.from.email,
    subject: campaign.template.subject,
    ...(html !== undefined ? { html } : {}),
    ...(campaign.template.text !== undefined ? { text: campaign.template.text } : {}),
    headers: {},
    substitutionData: {},
    totalAccepted: sendRecipients.length,
    totalRejected: 0,
    chunks: planChunks(sendRecipients),
    sent: 0,
    failed: 0,
    chunksDone: 0,
  };
  return { batch, recipients: sendRecipients };
};
