/**
 * Flow email rendering with LiquidJS (Shopify's template language, which merchants know).
 *
 * Two engines share one configuration and differ in one thing: the HTML engine escapes every `{{ }}` output with the
 * one escaping of every email (`escapeHtml`, `email/html-escape.ts`), so a cart line titled `<script>` arrives as text,
 * never as markup (a template that really wants raw HTML writes `| raw`); the plain engine (subject, text part) escapes
 * nothing, because those are not HTML. A rendered subject is one line: line breaks and other control characters from
 * values are folded into spaces (`oneLine`, `email/header-values.ts`), so no value writes a header of its own.
 *
 * Merchant templates are untrusted code running in a shared worker, so each engine:
 * - bounds the work: `parseLimit` (template characters), `renderLimit` (milliseconds per render), `memoryLimit`
 *   (allocations by filters and loops), and the rendered part's size is checked too;
 * - reads no files: `include`, `render` and `layout` are refused when parsed (and would resolve against an empty
 *   in-memory map anyway), so `{% include '/etc/passwd' %}` is a validation error, not a disclosure;
 * - refuses unknown filters when the template is saved (`strictFilters`), so a typo is a validation error, not an
 *   email with a hole in it; undefined variables render empty (a contact without a first name is normal);
 * - refuses what its render time limit cannot interrupt (a filter runs to its end): expression filters and ranges
 *   whose size is not a small literal (`template-cost.ts`).
 * Parsed templates are cached per engine by source text (a flow's templates are parsed once per warm worker).
 */
import { type Context, Liquid, type Template, toValue } from 'liquidjs';
import { oneLine } from '#shared/domain/email/header-values.ts';
import { escapeHtml } from '#shared/domain/email/html-escape.ts';
import { validationError } from '#shared/errors.ts';
import { processWide } from '#shared/lazy.ts';
import type { FlowStep } from './flow.ts';
import type { TemplateContext } from './template-context.ts';
import { unboundedConstruct } from './template-cost.ts';

export type EmailStep = Extract<FlowStep, { type: 'email' }>;

export interface RenderedEmail {
  /** One line: CR/LF and other control characters from values are folded into spaces. */
  readonly subject: string;
  readonly html?: string;
  readonly text?: string;
}

/** The template fields of an email step, in the order they are checked and rendered. */
export const TEMPLATE_FIELDS = ['subject', 'preheader', 'html', 'text'] as const;
export type TemplateField = (typeof TEMPLATE_FIELDS)[number];

export const TEMPLATE_LIMITS = {
  /** Characters of one template: a rich HTML email is 20–100 KB. */
  parseChars: 200_000,
  /** Milliseconds of rendering per part: real templates take well under 10 ms. */
  renderMs: 500,
  /** LiquidJS allocation units (string and array lengths created while rendering) per part. */
  memory: 5_000_000,
  /** Characters of one rendered part (SES accepts far more; no flow email needs more). */
  outputChars: 1_000_000,
} as const;

/** A template failed to parse or render; `field` names the part (`subject`, `preheader`, `html`, `text`). */
export class TemplateError extends Error {
  readonly field: TemplateField;

  constructor(field: TemplateField, message: string) {
    super(`${field}: ${message}`);
    this.name = 'TemplateError';
    this.field = field;
  }
}

const formats = new Map<string, Intl.NumberFormat>();
/** One formatter per currency code (building one costs far more than formatting). */
const currencyFormat = (code: string) => {
  let format = formats.get(code);
  if (!format) {
    format = new Intl.NumberFormat('en', { style: 'currency', currency: code });
    formats.set(code, format);
  }
  return format;
};

/** `{{ amount | money: currency }}`: `12.5 | money: "EUR"` → `€12.50`; without a known currency, `12.50`. */
const money = (value: unknown, currency?: unknown): string => {
  const amount = typeof value === 'number' ? value : Number(value);
  if (value === undefined || value === null || value === '' || !Number.isFinite(amount)) return '';
  if (typeof currency === 'string' && /^[A-Za-z]{3}$/.test(currency)) {
    try {
      return currencyFormat(currency.toUpperCase()).format(amount);
    } catch {
      // An unknown code: fall through to the plain amount.
    }
  }
  return amount.toFixed(2);
};

/** An output's text as LiquidJS's own `escape` filter reads it: nil is empty, an array its items joined. */
const outputText = (value: unknown): string => {
  const unwrapped: unknown = toValue(value);
  if (typeof unwrapped === 'string') return unwrapped;
  if (unwrapped === null || unwrapped === undefined) return '';
  if (Array.isArray(unwrapped)) return unwrapped.map(outputText).join('');
  return String(unwrapped);
};

/** The HTML engine's output escape: `escapeHtml`, counted against the memory limit as LiquidJS's `escape` is. */
function escapeOutput(this: { readonly context: Context }, value: unknown): string {
  const text = outputText(value);
  this.context.memoryLimit.use(text.length);
  return escapeHtml(text);
}

const engine = (escapesOutput: boolean) => {
  const liquid = new Liquid({
    ...(escapesOutput ? { outputEscape: escapeOutput } : {}),
    strictFilters: true,
    strictVariables: false,
    ownPropertyOnly: true,
    // No file system: partials resolve against this empty map only.
    templates: {},
    dynamicPartials: false,
    cache: false,
    parseLimit: TEMPLATE_LIMITS.parseChars,
    renderLimit: TEMPLATE_LIMITS.renderMs,
    memoryLimit: TEMPLATE_LIMITS.memory,
  });
  liquid.registerFilter('money', money);
  // Partials would need a file system or a template store flows do not have: refused when the template is saved.
  for (const tag of ['include', 'render', 'layout']) {
    liquid.registerTag(tag, {
      parse() {
        throw new Error(`tag "${tag}" is not available in flow emails`);
      },
      render() {
        return '';
      },
    });
  }
  return liquid;
};

/**
 * Built on the first parse: the two engines cost 20–30 ms of CPU at module init (bench `bundles`), paid by
 * every function that imports this module (flow CRUD, backtests, console pages) while only those that parse or render
 * a template need them. Marked pure, so that a function which never parses drops LiquidJS (82 kB) from its bundle.
 */
const engines = {
  html: /* @__PURE__ */ processWide(() => engine(true)),
  plain: /* @__PURE__ */ processWide(() => engine(false)),
};

const CACHE_SIZE = 500;
const caches = { html: new Map<string, Template[]>(), plain: new Map<string, Template[]>() };

const modeOf = (field: TemplateField) => (field === 'html' || field === 'preheader' ? 'html' : 'plain');

const reason = (error: unknown) =>
  (error instanceof Error ? error.message : String(error)).split('\n')[0]?.slice(0, 300) ?? 'invalid template';

/** Parses (or takes from the cache) one template; `TemplateError` on a syntax error or an unknown filter. */
const parsed = (field: TemplateField, source: string): Template[] => {
  const mode = modeOf(field);
  const cache = caches[mode];
  const hit = cache.get(source);
  if (hit) {
    // Refresh: the map's insertion order is the eviction order (least recently used first).
    cache.delete(source);
    cache.set(source, hit);
    return hit;
  }
  if (source.length > TEMPLATE_LIMITS.parseChars) {
    throw new TemplateError(field, `is longer than ${TEMPLATE_LIMITS.parseChars} characters`);
  }
  // Refused when saved, and when a flow saved before this rule renders (that run fails alone, with the reason).
  const unbounded = unboundedConstruct(source);
  if (unbounded) throw new TemplateError(field, unbounded);
  let templates: Template[];
  try {
    templates = engines[mode]().parse(source);
  } catch (error) {
    throw new TemplateError(field, reason(error));
  }
  cache.set(source, templates);
  if (cache.size > CACHE_SIZE) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  return templates;
};

const renderPart = (field: TemplateField, source: string, context: TemplateContext): string => {
  const mode = modeOf(field);
  let output: unknown;
  try {
    // Synchronously: no filter or tag of ours is asynchronous, and LiquidJS's async render costs several times more
    // (a promise per node; most of a backtest's time before this). The render limit applies the same.
    output = engines[mode]().renderSync(parsed(field, source), context);
  } catch (error) {
    if (error instanceof TemplateError) throw error;
    throw new TemplateError(field, reason(error));
  }
  const text = String(output ?? '');
  if (text.length > TEMPLATE_LIMITS.outputChars) {
    throw new TemplateError(field, `renders more than ${TEMPLATE_LIMITS.outputChars} characters`);
  }
  return text;
};

/**
 * The hidden preview text shown by mail clients after the subject. The trailing run of invisible characters keeps the
 * body's first words out of the preview when the preheader is short.
 */
const preheaderBlock = (preheader: string) =>
  `<div style="display:none;font-size:1px;color:#ffffff;line-height:1px;max-height:0;max-width:0;opacity:0;overflow:hidden;mso-hide:all;">${preheader}${'&#847;&zwnj;&nbsp;'.repeat(40)}</div>`;

/** Puts the preview block first in the body: right after `<body …>`, or at the very top of a fragment. */
const withPreheader = (html: string, preheader: string) => {
  if (preheader.trim() === '') return html;
  const block = preheaderBlock(preheader);
  const body = /<body\b[^>]*>/i.exec(html);
  if (!body) return `${block}${html}`;
  const at = body.index + body[0].length;
  return `${html.slice(0, at)}${block}${html.slice(at)}`;
};

/** Renders an email step's subject, HTML (with its preheader) and text against a context from `buildTemplateContext`. */
export const renderEmail = async (
  step: Pick<EmailStep, TemplateField>,
  context: TemplateContext,
): Promise<RenderedEmail> => {
  const subject = oneLine(renderPart('subject', step.subject, context));
  // A message without a subject is refused by SES and useless to the reader: fail the render, with the reason.
  if (subject === '') throw new TemplateError('subject', 'renders empty for this contact');
  let html: string | undefined;
  if (step.html !== undefined) {
    const body = renderPart('html', step.html, context);
    const preheader = step.preheader === undefined ? '' : renderPart('preheader', step.preheader, context);
    html = withPreheader(body, preheader);
  }
  const text = step.text === undefined ? undefined : renderPart('text', step.text, context);
  return { subject, ...(html !== undefined ? { html } : {}), ...(text !== undefined ? { text } : {}) };
};

/**
 * Parses every template of the step (the API's check before saving): a syntax error or an unknown filter is a
 * validation error naming the field, e.g. `steps[1].html: tag "endif" not found`.
 */
export const validateTemplates = (step: Pick<EmailStep, TemplateField>, where = 'step'): void => {
  for (const field of TEMPLATE_FIELDS) {
    const source = step[field];
    if (source === undefined) continue;
    try {
      parsed(field, source);
    } catch (error) {
      if (error instanceof TemplateError) throw validationError(`${where}.${error.message}`);
      throw error;
    }
  }
};
