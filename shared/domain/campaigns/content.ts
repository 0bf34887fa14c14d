/**
 * A campaign's email is Liquid, like a flow's email step (`shared/domain/flows/render.ts`: same engines, limits and
 * filters), but it is sent through the bulk path: one `SendBulkEmail` per 50 recipients sharing one content, SES
 * filling each recipient's values into `{{placeholders}}`. So the Liquid is rendered once, when the campaign is saved,
 * with each per-contact value standing as its SES placeholder; the recipients' values are handed to SES per entry.
 *
 * A template may therefore output the contact's fields as they are (`{{ contact.first_name }}`), but not transform or
 * test them (`| upcase`, `{% if contact.first_name == "Ada" %}`): the save renders twice with different placeholders
 * and refuses a template whose output does not follow the placeholders (docs/campaigns.md "Templates").
 *
 * SES fills a placeholder with the value as it is, escaping nothing, and one recipient's values serve all the parts.
 * So the HTML part of a send batch names each contact field's HTML-escaped copy (`htmlPart`: `{{sf_first_name_html}}`,
 * the one escaping of every email, `email/html-escape.ts`), and each recipient's data carries both (`recipientData`):
 * a first name `<a href=…>` reads `&lt;a href=…` in the HTML part, and as it is in the subject and the text part.
 * Done when the batch is made, not when the campaign is saved, so a campaign saved before this rule sends the same way.
 */
import type { Customer } from '#shared/domain/customers/model.ts';
import { escapeHtml } from '#shared/domain/email/html-escape.ts';
import { renderEmail, TemplateError, validateTemplates } from '#shared/domain/flows/render.ts';
import type { TemplateContext } from '#shared/domain/flows/template-context.ts';
import { validationError } from '#shared/errors.ts';
import type { CampaignContent } from './model.ts';

/** The per-recipient values a campaign template may output, and their SES placeholder names. */
const CONTACT_FIELDS = {
  first_name: 'sf_first_name',
  last_name: 'sf_last_name',
  email: 'sf_email',
  customer_id: 'sf_customer_id',
} as const;
/** The recipient's one-click unsubscribe link (the send path fills it per entry). */
export const UNSUBSCRIBE_PLACEHOLDER = 'sf_unsubscribe_url';

/** SES's placeholder, and a stand-in of other characters (none that HTML escaping changes) for the check. */
const placeholder = (name: string) => `{{${name}}}`;
const standIn = (name: string) => `[[${name.replace(/^sf_/, 'zq_')}]]`;

const contextWith = (token: (name: string) => string, campaign: { storeId: string; name: string }): TemplateContext => {
  return {
    contact: Object.fromEntries(Object.entries(CONTACT_FIELDS).map(([field, name]) => [field, token(name)])),
    store: { id: campaign.storeId, name: '' },
    campaign: { name: campaign.name },
    unsubscribe_url: token(UNSUBSCRIBE_PLACEHOLDER),
  } as unknown as TemplateContext;
};

const renderWith = async (
  content: CampaignContent,
  token: (name: string) => string,
  campaign: { storeId: string; name: string },
) => {
  try {
    return await renderEmail(content, contextWith(token, campaign));
  } catch (error) {
    if (error instanceof TemplateError) throw validationError(error.message);
    throw error;
  }
};

/**
 * Checks the Liquid parts (syntax, filters, cost: the flows' rules) and renders them into the SES template the send
 * path uses; throws a validation error naming the part.
 */
export const compileTemplate = async (
  content: CampaignContent,
  campaign: { storeId: string; name: string },
): Promise<CampaignContent> => {
  validateTemplates(content, 'body');
  const first = await renderWith(content, placeholder, campaign);
  const second = await renderWith(content, standIn, campaign);
  // And with every contact field empty, as SES fills a field the contact does not have.
  const fields: readonly string[] = Object.values(CONTACT_FIELDS);
  const empty = await renderWith(content, (name) => (fields.includes(name) ? '' : placeholder(name)), campaign);
  const names = [...fields, UNSUBSCRIBE_PLACEHOLDER];
  // A template that outputs the fields as they are renders the same whatever stands for them, an empty value included
  // (`| default: 'there'` would show only then, and SES would send the empty value instead).
  const undo = (text: string | undefined) =>
    names.reduce((t, name) => t?.replaceAll(standIn(name), placeholder(name)), text);
  // Compared with white space folded: rendering makes a subject one trimmed line, so "Hi " and "Hi" are the same.
  const fold = (text: string | undefined) => text?.replace(/\s+/g, ' ').trim();
  const blank = (text: string | undefined) =>
    fold(fields.reduce((t, name) => t?.replaceAll(placeholder(name), ''), text));
  for (const part of ['subject', 'html', 'text'] as const) {
    if (undo(second[part]) !== first[part] || blank(first[part]) !== fold(empty[part])) {
      throw validationError(
        `${part}: a campaign template outputs contact fields as they are ({{ contact.first_name }}); a filter or condition on a contact field is not supported (not even | default: a missing value is sent empty)`,
      );
    }
  }
  return {
    subject: first.subject,
    ...(first.html !== undefined ? { html: first.html } : {}),
    ...(first.text !== undefined ? { text: first.text } : {}),
  };
};

/** The placeholder of a contact field's HTML-escaped copy, which the HTML part names instead of the field. */
const inHtml = (name: string) => `${name}_html`;
const FIELD_NAMES: readonly string[] = Object.values(CONTACT_FIELDS);
/** A contact field's SES placeholder, however written (`{{sf_first_name}}`, `{{{ sf_first_name }}}`). */
const FIELD_PLACEHOLDER = new RegExp(`{{({?)\\s*(${FIELD_NAMES.join('|')})\\s*(}?)}}`, 'g');

/** A campaign's HTML part as its send batch has it: every contact field replaced by its HTML-escaped copy. */
export const htmlPart = (html: string): string =>
  html.replace(
    FIELD_PLACEHOLDER,
    (_, open: string, name: string, close: string) => `{{${open}${inHtml(name)}${close}}}`,
  );

/**
 * The values SES fills into one recipient's copy: each contact field as it is (subject, text part) and, for the
 * fields `html` (the batch's HTML part, from `htmlPart`) names, its HTML-escaped copy.
 */
export const recipientData = (customer: Customer | undefined, email: string, html?: string): Record<string, string> => {
  const values: Record<string, string> = {
    [CONTACT_FIELDS.first_name]: customer?.firstName ?? '',
    [CONTACT_FIELDS.last_name]: customer?.lastName ?? '',
    [CONTACT_FIELDS.email]: email,
    [CONTACT_FIELDS.customer_id]: customer?.originId ?? '',
  };
  if (html === undefined) return values;
  const escaped = FIELD_NAMES.filter((name) => html.includes(inHtml(name))).map(
    (name) => [inHtml(name), escapeHtml(values[name] ?? '')] as const,
  );
  return { ...values, ...Object.fromEntries(escaped) };
};

/**
 * A campaign batch's subject (or part) as its merchant wrote it: each SES placeholder the save put for a contact field
 * (`{{sf_first_name}}`, its HTML copy, the unsubscribe link) shown as the Liquid it stands for. For pages that show a
 * batch's subject to the merchant, who never wrote `sf_` names.
 */
export const asWritten = (compiled: string): string =>
  compiled.replace(/{{({?)\s*(sf_[a-z_]+?)(_html)?\s*(}?)}}/g, (whole, _open: string, name: string) => {
    if (name === UNSUBSCRIBE_PLACEHOLDER) return '{{ unsubscribe_url }}';
    const field = Object.entries(CONTACT_FIELDS).find(([, placeholderName]) => placeholderName === name)?.[0];
    return field ? `{{ contact.${field} }}` : whole;
  });
