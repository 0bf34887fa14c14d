/** Email: senders, bulk sending, SES events, unsubscribe and suppression. */
import { area, consumer, READ_ROUTE_USES, route } from '#shared/catalog/function-spec.ts';

export const EMAIL_FUNCTIONS = area('email', [
  // Sending domains (main host): management style, rate-limited per store in the table; SES identity calls but list.
  route('senders-create', ['POST', 'main', '/api/v1/senders'], { table: 'readWrite', sesIdentities: true }),
  route('senders-list', ['GET', 'main', '/api/v1/senders'], READ_ROUTE_USES),
  route('senders-get', ['GET', 'main', '/api/v1/senders/{domain}'], { table: 'readWrite', sesIdentities: true }),
  route('senders-delete', ['DELETE', 'main', '/api/v1/senders/{domain}'], {
    table: 'readWrite',
    sesIdentities: true,
  }),
  // Smart sending (docs/smart-sending.md): the store's frequency cap, quiet hours and time zone, on its store record.
  route('sending-settings-get', ['GET', 'main', '/api/v1/settings/sending'], READ_ROUTE_USES),
  route('sending-settings-update', ['PUT', 'main', '/api/v1/settings/sending'], { table: 'readWrite' }),
  // 2,000 recipients: validation, a suppression read and ~80 batch writes; a pending from domain is re-read from SES.
  route(
    'sending-create',
    ['POST', 'sending', '/api/v1/sending'],
    { table: 'readWrite', sendTo: ['sends'], sesIdentities: true },
    { timeoutSeconds: 29, memoryMb: 1024 },
  ),
  route('sending-get', ['GET', 'sending', '/api/v1/sending/{id}'], READ_ROUTE_USES, {
    timeoutSeconds: 29,
    memoryMb: 512,
  }),
  // Five chunks of 50 in parallel; a chunk waits at most ~20 s for its send slots (else it is re-queued), so 60 s is
  // ample, and the chunk lease (90 s) stays under the queue's visibility timeout. Unsubscribe links are signed with
  // a key derived from the master key; re-queued chunks go back to `sends`, completed chunks' sent emails to `counters`.
  // The SES rate, not concurrency, bounds it.
  consumer(
    'send-worker',
    'sends',
    { table: 'readWrite', sendTo: ['sends', 'counters'], mailer: true, masterKey: true },
    { timeoutSeconds: 60, memoryMb: 512, batchSize: 5, maxConcurrency: 10 },
  ),
  // SES events, each a few reads and writes and at most a webhook to queue, handled side by side: 100 fit well within
  // 30 s. Nobody waits on them by the second, so Lambda gathers them for up to 2 s: a busy store's delivery, open and
  // click counters and its bounce guard are then written once per batch for up to 100 events.
  // Opens, clicks and opt-outs also move the recipient's segments: segment flow triggers (flows queue) and
  // time-window re-evaluations (the timer wheel's schedules).
  consumer(
    'email-events-worker',
    'emailEvents',
    { table: 'readWrite', sendTo: ['webhooks', 'flows', 'counters'], scheduler: true },
    { timeoutSeconds: 30, memoryMb: 256, batchSize: 100, maxConcurrency: 10, batchingWindowSeconds: 2 },
  ),
  // Public (the link in every email): the token is the credential. GET only shows a page, so it only reads.
  route('unsubscribe-page', ['GET', 'sending', '/unsubscribe/{token}'], { table: 'read', masterKey: true }),
  route('unsubscribe', ['POST', 'sending', '/unsubscribe/{token}'], {
    table: 'readWrite',
    masterKey: true,
    sendTo: ['webhooks'],
  }),
  // Public (the link in a publishable-key sign-up's confirmation email): the token is the credential. GET only shows a
  // page (link scanners fetch links); POST confirms: the consent write, its webhook, the welcome trigger, and the
  // contact's segments evaluated again (flow triggers; time-window re-evaluations on the timer wheel's schedules).
  route('sign-up-confirm-page', ['GET', 'sending', '/confirm/{token}'], { table: 'read', masterKey: true }),
  route('sign-up-confirm', ['POST', 'sending', '/confirm/{token}'], {
    table: 'readWrite',
    masterKey: true,
    sendTo: ['webhooks', 'flows'],
    scheduler: true,
  }),
]);
