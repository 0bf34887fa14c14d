/**
 * What a flow email template may not do, because its cost cannot be bounded before it runs. LiquidJS checks
 * its render time limit between template nodes only, so one filter call runs to its end: `(1..2400000) | where_exp:
 * "x", "x > 0 and x < 5 or x == 7"` took 20 s against a 500 ms limit, blocking a shared worker. Measured on LiquidJS
 * 10.30: native filters (`sort`, `map`, `where`, `uniq`) over the largest array the memory limit allows stay near
 * 100 ms; an expression filter evaluates a Liquid expression per item, 2–8 µs each. So:
 * - expression filters (`where_exp`, `find_exp`, …) are refused: `where` with a value covers what emails need;
 * - a range must have whole-number literal bounds and at most `MAX_RANGE_ITEMS` items: a range is the only way to
 *   make a large array out of nothing, and one with a bound from the data (`(1..contact.points)`) has no known size.
 * Everything else a template can loop over comes from the contact, the cart or the event, bounded by their sizes, and
 * loops are nodes, which the render time limit does interrupt.
 */

/** The most items a range may have: a countdown, a star rating or a grid of a few rows, never a loop of millions. */
export const MAX_RANGE_ITEMS = 1000;

/** Filters that evaluate an expression per item. */
const EXPRESSION_FILTERS = ['where_exp', 'reject_exp', 'find_exp', 'find_index_exp', 'group_by_exp', 'has_exp'];
const EXPRESSION_FILTER = new RegExp(`\\|\\s*(${EXPRESSION_FILTERS.join('|')})\\b`);

/** The inside of every `{{ … }}` and `{% … %}`: where filters and ranges can be (text outside them is not code). */
const CODE = /{%-?([\s\S]*?)-?%}|{{-?([\s\S]*?)-?}}/g;
/** `(a..b)`; strings are stripped before matching, so a range written inside a quoted string is not one. */
const RANGE = /\(\s*([^()]*?)\s*\.\.\s*([^()]*?)\s*\)/g;
const STRING = /"[^"]*"|'[^']*'/g;
const INTEGER = /^-?\d+$/;

/** Why the template's cost cannot be bounded (naming the construct), or undefined when it can. */
export const unboundedConstruct = (source: string): string | undefined => {
  for (const match of source.matchAll(CODE)) {
    const code = (match[1] ?? match[2] ?? '').replace(STRING, '""');
    const filter = EXPRESSION_FILTER.exec(code);
    if (filter) {
      return `the filter ${filter[1]} is not available in flow emails (it runs an expression per item, so its cost cannot be bounded); use where`;
    }
    for (const range of code.matchAll(RANGE)) {
      const [text, from = '', to = ''] = range;
      if (!INTEGER.test(from) || !INTEGER.test(to)) {
        return `the range ${text.trim()} must have whole-number bounds written in the template (its size cannot be known before it runs)`;
      }
      const items = Math.abs(Number(to) - Number(from)) + 1;
      if (items > MAX_RANGE_ITEMS) {
        return `the range ${text.trim()} has ${items} items; at most ${MAX_RANGE_ITEMS} are allowed`;
      }
    }
  }
  return undefined;
};
