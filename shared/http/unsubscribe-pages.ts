/**
 * The public unsubscribe endpoint's pages and request reading (sending host, `/unsubscribe/{token}`). The recipients of
 * a store's mail see these, so they are plain, short and name the store; every value is escaped, nothing is loaded from
 * elsewhere, and nothing is cached or framed (the URL carries the recipient's token).
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { UnsubscribeClaim } from '#shared/domain/email/unsubscribe-token.ts';
import type { Store } from '#shared/domain/stores/model.ts';
import type { StoreRepository } from '#shared/domain/stores/ports.ts';
import { escapeHtml, htmlDocument, PAGE_HEADERS } from './back-office-pages.ts';
import type { Reply } from './reply.ts';
import { httpRoute } from './route.ts';

const STYLE = `
  body { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2933; background: #f5f7fa; margin: 0; }
  main { max-width: 32rem; margin: 4rem auto; padding: 2rem; background: #fff; border-radius: 8px;
         box-shadow: 0 1px 3px rgba(0,0,0,.12); }
  h1 { font-size: 1.3rem; margin-top: 0; }
  .muted { color: #616e7c; font-size: .9rem; }
  button { font: inherit; padding: .5rem 1.2rem; margin-top: 1rem; cursor: pointer; border: 0; border-radius: 6px;
           background: #1f2933; color: #fff; }
`;

/** A page of the sending host's public links (unsubscribe, sign-up confirmation): plain, escaped, uncached. */
export const page = (statusCode: number, title: string, body: string): Reply => ({
  statusCode,
  headers: PAGE_HEADERS,
  body: htmlDocument(title, STYLE, `<h1>${escapeHtml(title)}</h1>\n${body}`),
});

export const sender = (storeName: string | undefined) => (storeName ? escapeHtml(storeName) : 'this sender');

/**
 * The confirmation page of `GET`: it changes nothing (mail scanners and link previews fetch every link), and its
 * button posts the same one-click body a mail client sends, to the same URL.
 */
export const confirmPage = (email: string, storeName: string | undefined): Reply =>
  page(
    200,
    'Unsubscribe',
    `<p>Stop marketing email from ${sender(storeName)} to <strong id="email">${escapeHtml(email)}</strong>?</p>
<form method="post">
<input type="hidden" name="List-Unsubscribe" value="One-Click">
<button type="submit">Unsubscribe</button>
</form>`,
  );

export const donePage = (email: string, storeName: string | undefined): Reply =>
  page(
    200,
    'You are unsubscribed',
    `<p id="done"><strong>${escapeHtml(email)}</strong> will receive no more marketing email from ${sender(storeName)}.</p>
<p class="muted">It can take a moment for mail already on its way to stop.</p>`,
  );

/** Malformed, altered or foreign tokens: one answer, whatever was wrong, so a token cannot be probed. */
export const invalidLinkPage = (): Reply =>
  page(
    400,
    'This unsubscribe link is not valid',
    '<p>The link may be incomplete or altered. Please use the unsubscribe link from the email itself.</p>',
  );

export const notOneClickPage = (): Reply =>
  page(
    400,
    'Unsubscribe request not understood',
    '<p>An unsubscribe request must carry <code>List-Unsubscribe=One-Click</code> (RFC 8058). Please use the button on the unsubscribe page.</p>',
  );

/**
 * True when the `POST` body carries RFC 8058's `List-Unsubscribe=One-Click`, form-encoded (what mail clients and the
 * confirmation page send) or as a multipart field (which RFC 8058 also allows).
 */
export const isOneClickBody = (event: APIGatewayProxyEventV2): boolean => {
  const raw = event.body ? Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8').toString('utf8') : '';
  if (raw.length > 16 * 1024) return false;
  const contentType = event.headers['content-type'] ?? '';
  if (/^multipart\/form-data/i.test(contentType)) {
    return /name="List-Unsubscribe"\r?\n(?:[^\r\n]+\r?\n)*\r?\nOne-Click\r?\n/i.test(raw);
  }
  return new URLSearchParams(raw).getAll('List-Unsubscribe').includes('One-Click');
};

/** What reading an unsubscribe link needs: the link verifier and the store it names (from the wiring). */
export interface UnsubscribeLinkDeps {
  readonly links: { verify(token: string): Promise<UnsubscribeClaim | undefined> };
  readonly stores: Pick<StoreRepository, 'get'>;
}

/** What a valid unsubscribe link points at. */
export interface UnsubscribeTarget {
  readonly event: APIGatewayProxyEventV2;
  readonly claim: UnsubscribeClaim;
  readonly store: Store;
}

/**
 * A public route of `/unsubscribe/{token}`: a malformed, altered or foreign token, or one whose store is gone, gets
 * {@link invalidLinkPage}; a valid one is handed to `handle` with its claim and its store.
 */
export const unsubscribeRoute = (
  deps: () => UnsubscribeLinkDeps,
  handle: (target: UnsubscribeTarget) => Promise<Reply>,
) =>
  httpRoute({
    api: 'backOffice',
    auth: 'none',
    handle: async ({ event }) => {
      const { links, stores } = deps();
      const claim = await links.verify(event.pathParameters?.token ?? '');
      const store = claim && (await stores.get(claim.storeId));
      if (!claim || !store) return invalidLinkPage();
      return handle({ event, claim, store });
    },
  });
