/**
 * Contact values in a campaign's email, replayed as an attacker sets them through the publishable key: markup in a
 * first name is text in the HTML part (the one escaping of every email), and a first or last name with CR/LF never
 * reaches a header (the bulk path's rule: the recipient is skipped with `header_line_break`). The walk, then the send
 * path, then SES's filling of the template, on in-memory ports.
 */
import { describe, expect, it } from 'vitest';
import type { CampaignRequest } from '#shared/domain/campaigns/campaign-request.ts';
import { createCampaign } from '#shared/domain/campaigns/manage-campaigns.ts';
import { handleCampaignMessage } from '#shared/domain/campaigns/run-campaign.ts';
import type { SendBatch, SendRecipient } from '#shared/domain/email/bulk-model.ts';
import type { BulkEntryResult, OutboundBulk } from '#shared/domain/email/model.ts';
import { handleSendMessage, type SendWorkerDeps } from '#shared/domain/email/send-chunk.ts';
import { CAMPAIGN_STORE, campaignFakes, campaignRequest, subscriber } from '#test/support/memory/campaigns.ts';
import { memoryBatches, scriptedMailer } from '#test/support/memory/email.ts';
import { type RenderedEntry, sesRender } from '#test/support/ses-render.ts';

const SEGMENT = 'seg_aaaaaaaaaaaaaaaaaaaa';
const MARKUP = '<a href="https://evil.example/refund">Claim your refund</a>';
const ESCAPED = '&lt;a href=&#34;https://evil.example/refund&#34;&gt;Claim your refund&lt;/a&gt;';
const INJECTION = 'Eve\r\nBcc: spy@evil.example';

const allSent = (entries: OutboundBulk['entries']): BulkEntryResult[] =>
  entries.map((e) => ({ status: 'sent', messageId: `m-${e.to.email}` }));

/** Sends every chunk of a stored send batch as the send worker does, and answers what SES would make of each entry. */
const sendThroughSes = async (stored: { batch: SendBatch; recipients: SendRecipient[] }) => {
  const { mailer, calls } = scriptedMailer([allSent]);
  const deps: SendWorkerDeps = {
    batches: memoryBatches(
      stored.batch,
      stored.recipients.map((r) => ({ ...r })),
    ).repo,
    queue: { startBatch: async () => undefined, enqueueChunks: async () => undefined },
    mailer,
    sentMessages: { record: async () => undefined, get: async () => undefined, firstOpen: async () => false },
    pacer: { reserve: async () => ({ at: 0 }) },
    unsubscribeUrl: async (claim) => `https://send.example/u/${claim.email}`,
    clock: { now: () => 1_000 },
    sleep: async () => undefined,
    sendRatePerSecond: 14,
    leaseMs: 90_000,
    campaignCancelled: async () => false,
  };
  for (const [chunk] of stored.batch.chunks.entries()) {
    const message = { v: 1, type: 'chunk', storeId: stored.batch.storeId, batchId: stored.batch.id, chunk } as const;
    await handleSendMessage(deps, message, { receiveCount: 1, maxReceiveCount: 5 });
  }
  return { calls, rendered: calls.flatMap(sesRender) };
};

/** A campaign to `contacts`, walked and sent: the recipients' records and each mail as SES would fill it. */
const campaignTo = async (contacts: ReturnType<typeof subscriber>[], extra: Partial<CampaignRequest> = {}) => {
  const fakes = campaignFakes();
  fakes.segment(SEGMENT, contacts);
  const created = await createCampaign(fakes.manage, CAMPAIGN_STORE, campaignRequest(SEGMENT, extra));
  const start = fakes.queued.shift();
  await handleCampaignMessage(fakes.worker, start as NonNullable<typeof start>);
  const mails: RenderedEntry[] = [];
  const bulks: OutboundBulk[] = [];
  for (const stored of fakes.batches.values()) {
    const { calls, rendered } = await sendThroughSes(stored);
    mails.push(...rendered);
    bulks.push(...calls);
  }
  return { records: fakes.recipients.get(created.id), mails, bulks };
};

const mailTo = (mails: readonly RenderedEntry[], email: string) => mails.find((m) => m.to === email);

describe("contact values in a campaign's email", () => {
  it('shows markup in a first name as text in the HTML part and the preheader, as it is in the text part', async () => {
    const { mails } = await campaignTo(
      [subscriber('eve', { firstName: MARKUP }), subscriber('ada', { firstName: 'Ada' })],
      {
        preheader: 'For {{ contact.first_name }}',
        html: '<p>Hi {{ contact.first_name }}</p><p title="{{ contact.first_name }}">{{ contact.email }}</p>',
      },
    );
    const eve = mailTo(mails, 'eve@example.com');
    expect(eve?.html).not.toContain('<a href="https://evil.example/refund">');
    expect(eve?.html).toContain(`<p>Hi ${ESCAPED}</p>`);
    expect(eve?.html).toContain(`<p title="${ESCAPED}">eve@example.com</p>`);
    expect(eve?.html).toContain(`>For ${ESCAPED}&#847;`);
    // The text part is not HTML: the name reads as it was given, as text.
    expect(eve?.text).toBe(`Hi ${MARKUP}, unsubscribe: https://send.example/u/eve@example.com`);
    expect(eve?.subject).toBe(`Hello ${MARKUP}`);
    // A plain name reads the same in every part.
    expect(mailTo(mails, 'ada@example.com')?.html).toContain('<p>Hi Ada</p>');
  });

  it('skips a recipient whose name would put CR/LF into a header (header_line_break), and sends the rest', async () => {
    const { records, mails, bulks } = await campaignTo([
      subscriber('mal', { firstName: INJECTION }),
      subscriber('lia', { firstName: 'Lia', lastName: 'Smith\nBcc: spy@evil.example' }),
      subscriber('ada', { firstName: 'Ada' }),
    ]);
    expect(records?.get('mal')).toMatchObject({ status: 'skipped', reason: 'header_line_break' });
    // The `To:` name is a header too, whether or not the template shows the name.
    expect(records?.get('lia')).toMatchObject({ status: 'skipped', reason: 'header_line_break' });
    expect(records?.get('ada')).toMatchObject({ status: 'queued' });
    expect(mails.map((m) => m.to)).toEqual(['ada@example.com']);
    for (const mail of mails) expect(mail.subject).not.toMatch(/[\r\n]/);
    for (const entry of bulks.flatMap((b) => b.entries)) expect(entry.to.name ?? '').not.toMatch(/[\r\n]/);
  });
});
