/**
 * The console's campaign pages: the store's campaigns newest first with their state, progress and stats,
 * and one campaign with a page of its recipients' outcomes. The reads are the campaigns API's (`listCampaigns`,
 * `getCampaign`, `campaignStats`, `listCampaignRecipients`); segment names are the segments API's list (one read of
 * the store's segments, which are few).
 */
import {
  type CampaignRecipientsDeps,
  type CampaignRecord,
  type CampaignStats,
  type CampaignStatsDeps,
  campaignStats,
  getCampaign,
  listCampaignRecipients,
  listCampaigns,
} from '#shared/domain/campaigns/manage-campaigns.ts';
import { listSegments, type SegmentReadDeps } from '#shared/domain/segments/manage-segments.ts';

export type CampaignViewDeps = CampaignStatsDeps &
  CampaignRecipientsDeps &
  Pick<SegmentReadDeps, 'segments' | 'states'>;

/** Campaigns per page of the list ("Older campaigns"): one counters read each, side by side. */
export const CAMPAIGNS_SHOWN = 20;
/** Recipients per page of a campaign ("More recipients"). */
export const RECIPIENTS_SHOWN = 50;

/** Segment id → name, for the store's segments (a deleted segment keeps its id on the campaign: shown as the id). */
const segmentNames = async (deps: Pick<SegmentReadDeps, 'segments' | 'states'>, storeId: string) =>
  new Map((await listSegments(deps, storeId)).list.map((segment) => [segment.id, segment.name]));

export interface CampaignRow {
  readonly campaign: CampaignRecord;
  readonly stats: CampaignStats;
}

export const campaignsView = async (deps: CampaignViewDeps, storeId: string, cursor: string | undefined) => {
  const [page, names] = await Promise.all([
    listCampaigns(deps, storeId, { limit: CAMPAIGNS_SHOWN, cursor }),
    segmentNames(deps, storeId),
  ]);
  const rows: CampaignRow[] = await Promise.all(
    page.list.map(async (campaign) => ({
      campaign,
      stats: await campaignStats(deps, storeId, { ...campaign, sendAt: campaign.sendAt * 1000 }),
    })),
  );
  return { rows, names, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
};
export type CampaignsView = Awaited<ReturnType<typeof campaignsView>>;

/** One campaign, its stats and a page of its recipients from `cursor`; another store's id throws the API's 404. */
export const campaignView = async (
  deps: CampaignViewDeps,
  storeId: string,
  campaignId: string,
  cursor: string | undefined,
) => {
  const campaign = await getCampaign(deps, storeId, campaignId);
  const [recipients, names] = await Promise.all([
    listCampaignRecipients(deps, storeId, campaign.id, { limit: RECIPIENTS_SHOWN, cursor }),
    segmentNames(deps, storeId),
  ]);
  return { campaign, recipients, names };
};
export type CampaignView = Awaited<ReturnType<typeof campaignView>>;
