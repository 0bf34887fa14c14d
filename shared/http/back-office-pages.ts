/**
 * The back office's HTML pages (OAuth sign-in landing, refusals). Every value is escaped; the pages load nothing from
 * elsewhere, so the policy below forbids every source but the inline style, and no page may be framed or cached (they
 * show who is signed in, and the sign-in link carries its token in the URL).
 */
import type { BackOfficeAccess } from '#shared/domain/accounts/sign-in.ts';
import type { Reply } from './reply.ts';
import { clearedSessionCookie } from './session-cookie.ts';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML element content and quoted attribute values. */
export const escapeHtml = (value: unknown): string => String(value).replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

/** Headers of every back-office page. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  // Not `no-referrer`: with it browsers send `Origin: null` on the pages' own form posts, which the cross-site check
  // (same-origin.ts) cannot tell from a forged one. `same-origin` still keeps the link's token from every other site.
  'referrer-policy': 'same-origin',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

const STYLE = `
  body { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2933; background: #f5f7fa; margin: 0; }
  main { max-width: 40rem; margin: 4rem auto; padding: 2rem; background: #fff; border-radius: 8px;
         box-shadow: 0 1px 3px rgba(0,0,0,.12); }
  h1 { font-size: 1.4rem; margin-top: 0; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
  dt { color: #616e7c; }
  dd { margin: 0; }
  table { border-collapse: collapse; width: 100%; margin-top: .5rem; }
  th, td { text-align: left; padding: .4rem .5rem; border-bottom: 1px solid #e4e7eb; }
  code { font-size: .9em; }
  button { font: inherit; padding: .3rem .9rem; margin-top: 1.5rem; cursor: pointer; }
`;

/**
 * A whole HTML document (the back office's and the unsubscribe pages): `body` is trusted markup built with
 * {@link escapeHtml}; `title` is escaped here.
 */
export const htmlDocument = (title: string, style: string, body: string): string =>
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${style}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;

/** A whole back-office page: `body` is trusted markup built with {@link escapeHtml}; `title` is escaped here. */
const renderPage = (title: string, body: string): string => htmlDocument(`${title} · Storeflow`, STYLE, body);

/** A page that explains one outcome (a refused link, a missing session, an error) in a sentence or two. */
export const htmlPage = (
  statusCode: number,
  title: string,
  message: string,
  headers: Readonly<Record<string, string>> = {},
  cookies?: readonly string[],
): Reply => ({
  statusCode,
  headers: { ...PAGE_HEADERS, ...headers },
  body: renderPage(title, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(message)}</p>`),
  ...(cookies ? { cookies } : {}),
});

/**
 * What a sign-in link opens (`GET /oauth/callback`): a button that POSTs the token. Link scanners and mail previews
 * fetch links with GET; only the person's click uses the link up and signs in.
 */
export const continueSignInPage = (token: string): Reply => ({
  statusCode: 200,
  headers: PAGE_HEADERS,
  body: renderPage(
    'Sign in to the back office',
    `<h1>Sign in to the back office</h1>
<p>This link signs you in once. Continue to open your session.</p>
<form method="post" action="/oauth/callback?token=${encodeURIComponent(token)}"><button type="submit">Continue</button></form>`,
  ),
});

/** Every back-office page without a valid session: 401, and the stale cookie cleared when one was sent. */
export const notSignedInPage = (hadSession: boolean): Reply =>
  htmlPage(
    401,
    'You are not signed in',
    'Your session has ended or was never started. Sign in again with a new sign-in link.',
    {},
    hadSession ? [clearedSessionCookie()] : undefined,
  );

/** The landing page of a signed-in sub-account: who it is, for which main account, and the stores it may open. */
export const backOfficePage = (view: BackOfficeAccess): Reply => {
  const rows = view.stores
    .map(
      (s) =>
        `<tr><td><a href="/back-office/stores/${encodeURIComponent(s.storeId)}">${escapeHtml(s.name)}</a></td>` +
        `<td><code>${escapeHtml(s.storeId)}</code></td></tr>`,
    )
    .join('\n');
  const stores = view.stores.length
    ? `<table id="stores">\n<thead><tr><th>Store</th><th>Store id</th></tr></thead>\n<tbody>\n${rows}\n</tbody>\n</table>`
    : '<p id="stores">No store is open to this account yet.</p>';
  const access = view.access === 'all' ? 'all stores of the main account' : 'the stores below';
  const body = `<h1>Back office</h1>
<dl>
<dt>Signed in as</dt><dd id="username">${escapeHtml(view.username)}</dd>
<dt>Main account</dt><dd id="main-account">${escapeHtml(view.mainAccount.name)} <code>${escapeHtml(view.mainAccount.id)}</code></dd>
<dt>Access</dt><dd>${escapeHtml(access)}</dd>
</dl>
<h2>Stores</h2>
${stores}
<form method="post" action="/back-office/sign-out"><button type="submit">Sign out</button></form>`;
  return { statusCode: 200, headers: PAGE_HEADERS, body: renderPage('Back office', body) };
};
