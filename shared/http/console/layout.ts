/**
 * What every console page shares (docs/decisions.md, "The console: server-rendered pages"): the style sheet,
 * the page frame and the formatting of numbers, money, rates and times. Pages are HTML rendered on the server from the
 * same use cases as the API, no script, the back office's headers (strict CSP, no framing, no caching). Every value is
 * escaped with `escapeHtml`; numbers are formatted here, never taken as markup.
 */
import { escapeHtml, htmlDocument, PAGE_HEADERS } from '#shared/http/back-office-pages.ts';
import type { Reply } from '#shared/http/reply.ts';

export const STYLE = `
  body { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2933; background: #f5f7fa; margin: 0; }
  main { max-width: 72rem; margin: 2rem auto; padding: 1.5rem 2rem; background: #fff; border-radius: 8px;
         box-shadow: 0 1px 3px rgba(0,0,0,.12); }
  nav a, a { color: #0b5cad; }
  h1 { font-size: 1.5rem; margin: .5rem 0 1rem; }
  h2 { font-size: 1.15rem; margin-top: 2rem; }
  form.range { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: end; }
  form.range label { display: flex; flex-direction: column; font-size: .9rem; color: #3e4c59; }
  input, button { font: inherit; padding: .3rem .5rem; }
  button { padding: .3rem .9rem; cursor: pointer; }
  :focus-visible { outline: 3px solid #0b5cad; outline-offset: 2px; }
  .cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(11rem, 1fr)); gap: .75rem; margin: 0; }
  .cards div { border: 1px solid #e4e7eb; border-radius: 6px; padding: .6rem .8rem; }
  .cards dt { color: #52606d; font-size: .9rem; }
  .cards dd { margin: 0; font-size: 1.4rem; font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }
  .cards dd code { font-size: 1rem; }
  table { border-collapse: collapse; width: 100%; margin-top: .5rem; }
  caption { text-align: left; color: #52606d; padding-bottom: .3rem; }
  th, td { text-align: left; padding: .4rem .5rem; border-bottom: 1px solid #e4e7eb; vertical-align: top; }
  td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
  .muted { color: #52606d; }
  .scroll { overflow-x: auto; }
  .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
  .field { display: flex; flex-direction: column; margin: .75rem 0; max-width: 48rem; }
  .field label { font-weight: 600; }
  .hint { color: #52606d; font-size: .9rem; }
  textarea { font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; padding: .4rem; }
  .error { color: #9b1c1c; }
  [role=alert] { border: 1px solid #f0b4b4; background: #fdf2f2; padding: .6rem .8rem; border-radius: 6px; }
  fieldset { border: 1px solid #e4e7eb; border-radius: 6px; margin: .75rem 0; }
  .standing { border-radius: 6px; padding: .6rem .8rem; margin-bottom: 1rem; }
  .standing h2 { margin: 0 0 .3rem; font-size: 1.05rem; }
  .standing p { margin: 0; }
  .standing.warning { border: 1px solid #f5d48a; background: #fffaeb; }
`;

export const page = (title: string, body: string): Reply => ({
  statusCode: 200,
  headers: PAGE_HEADERS,
  body: htmlDocument(`${title} · Storeflow`, STYLE, body),
});

export const count = (n: number) => escapeHtml(n.toLocaleString('en-US'));

/** Revenue per currency (`{EUR: '39.80'}`) as `EUR 39.80`, several joined; `—` when none. */
export const revenue = (amounts: Readonly<Record<string, string>>) => {
  const parts = Object.entries(amounts).map(([currency, amount]) => `${currency} ${amount}`);
  return parts.length > 0 ? escapeHtml(parts.join(', ')) : '—';
};

/** A rate as a percentage of a base (`—` without a base). */
export const rate = (n: number, base: number) => (base > 0 ? `${((n / base) * 100).toFixed(1)} %` : '—');

export const cards = (id: string, items: readonly (readonly [string, string, string])[]) =>
  `<dl class="cards" id="${id}">\n${items
    .map(([key, label, value]) => `<div data-key="${key}"><dt>${label}</dt><dd>${value}</dd></div>`)
    .join('\n')}\n</dl>`;

export const when = (epochMs: number) => escapeHtml(new Date(epochMs).toISOString().replace('T', ' ').slice(0, 16));

/** 90 → `1 min 30 s`, 3600 → `1 h`, 86400 → `1 d`. */
export const duration = (seconds: number) => {
  const parts: string[] = [];
  let rest = seconds;
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['min', 60],
    ['s', 1],
  ] as const) {
    const n = Math.floor(rest / size);
    if (n > 0) parts.push(`${n} ${unit}`);
    rest -= n * size;
  }
  return parts.join(' ') || '0 s';
};

export const field = (id: string, label: string, control: string, hint?: string) =>
  `<div class="field"><label for="${id}">${label}</label>${hint ? `<span class="hint" id="${id}-hint">${hint}</span>` : ''}${control}</div>`;

/** A page of one store: `/back-office/stores/{storeId}`. */
export const storeBase = (storeId: string) => `/back-office/stores/${encodeURIComponent(storeId)}`;
