/**
 * The one HTML escaping of every email this service sends: a contact's or a merchant's value shown in an HTML part is
 * text, never markup. Flow emails and their previews (the LiquidJS HTML engine's output escape, `flows/render.ts`),
 * campaign emails (the escaped copy of each per-recipient value SES fills into the HTML part, `campaigns/content.ts`)
 * and the bulk path's preheader (`send-chunk.ts`) all call it. SES fills template data as it is, escaping nothing, so
 * whatever reaches an SES template's HTML part from a person has been through here first.
 *
 * Its twin for headers is `header-values.ts`: no value may put CR or LF into a header.
 */

/** LiquidJS's `escape` entities, so a flow email reads the same as before the engine called this. */
const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&#34;',
  "'": '&#39;',
};

/** `text` for HTML element content and quoted attribute values: `<a href="x">` → `&lt;a href=&#34;x&#34;&gt;`. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
