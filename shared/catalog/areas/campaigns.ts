/** Campaigns: one-off emails to segments, now or scheduled, through the bulk send path. */
import { area, consumer, READ_ROUTE_USES, route } from '#shared/catalog/function-spec.ts';

export const CAMPAIGNS_FUNCTIONS = area('campaigns', [
  // Management style, rate-limited per store in the table. A create checks the sender (a pending domain is re-read
  // from SES), renders the template once, and starts the campaign (campaigns queue) or sets its due minute on the
  // timer wheel (a Scheduler tick per store and minute).
  route(
    'campaigns-create',
    ['POST', 'main', '/api/v1/campaigns'],
    { table: 'readWrite', sendTo: ['campaigns'], scheduler: true, sesIdentities: true },
    { timeoutSeconds: 10, memoryMb: 512 },
  ),
  route('campaigns-list', ['GET', 'main', '/api/v1/campaigns'], READ_ROUTE_USES),
  route('campaigns-get', ['GET', 'main', '/api/v1/campaigns/{campaignId}'], READ_ROUTE_USES),
  route('campaigns-cancel', ['POST', 'main', '/api/v1/campaigns/{campaignId}/cancel'], { table: 'readWrite' }),
  route('campaign-recipients', ['GET', 'main', '/api/v1/campaigns/{campaignId}/recipients'], READ_ROUTE_USES),
  // A walk runs at most a minute (then queues its continuation), so two minutes bound a crashed one; a page of 1,000
  // members is a few batch reads, 1,000 conditional puts and one send batch (~40 batch writes). One message a batch:
  // pages of one campaign follow each other, campaigns of different stores run side by side. Recipients held by quiet
  // hours are set on the timer wheel (a Scheduler tick per store and minute).
  consumer(
    'campaign-worker',
    'campaigns',
    { table: 'readWrite', sendTo: ['campaigns', 'sends'], scheduler: true },
    { timeoutSeconds: 120, memoryMb: 1024, batchSize: 1, maxConcurrency: 5 },
  ),
]);
