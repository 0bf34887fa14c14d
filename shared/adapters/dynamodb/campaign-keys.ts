/**
 * Key builders of the campaigns area (docs/campaigns.md), spread into `keys` (`keys.ts`, where the table of every
 * entity's keys is): the campaign (progress by atomic `ADD`), its recipients, the store's count of active campaigns.
 */

/** Fixed width so the string order of the sort key is the numeric order. */
const createdAtKey = (createdAt: number) => String(Math.max(0, Math.trunc(createdAt))).padStart(15, '0');

export const CAMPAIGN_KEYS = {
  campaign: (storeId: string, campaignId: string) => ({
    pk: `STORE#${storeId}#CAMPAIGN#${campaignId}`,
    sk: 'CAMPAIGN',
  }),
  /** A store's campaigns in creation order (listed newest first). */
  campaignByStore: (storeId: string, createdAt: number, campaignId: string) => ({
    gsi1pk: `STORE#${storeId}#CAMPAIGNS`,
    gsi1sk: `${createdAtKey(createdAt)}#${campaignId}`,
  }),
  /** A campaign's recipients in customer id order: one partition, paged by `Query`. */
  campaignRecipients: (storeId: string, campaignId: string) => ({ pk: `STORE#${storeId}#CAMPAIGN#${campaignId}#RCPT` }),
  campaignRecipient: (storeId: string, campaignId: string, customerId: string) => ({
    pk: `STORE#${storeId}#CAMPAIGN#${campaignId}#RCPT`,
    sk: customerId,
  }),
  activeCampaigns: (storeId: string) => ({ pk: `STORE#${storeId}#CAMPAIGNS-ACTIVE`, sk: 'COUNT' }),
} as const;
