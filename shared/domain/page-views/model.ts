/** Page views, kept per contact as history that flow conditions can use (general rule 5: "history kept"). */

export interface PageView {
  readonly storeId: string;
  /** `email:<address>`, `customer:<id>`, or `guest` for anonymous headless views. */
  readonly contactKey: string;
  readonly sourceId: string;
  readonly url?: string;
  readonly title?: string;
  readonly productId?: string;
  /** Seconds, as sent (or the time of acceptance). */
  readonly viewedAt: number;
  readonly interface: 'general' | 'headless';
}

/** History is kept 180 days; then DynamoDB's TTL removes it. */
export const PAGE_VIEW_RETENTION_SECONDS = 180 * 24 * 3600;
