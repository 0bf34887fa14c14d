/**
 * Building blocks of the preset emails: a responsive, inline-styled HTML frame (tables, because Outlook and Gmail
 * ignore most CSS; a 600 px column that narrows on phones), a call-to-action button, line item tables and a footer with
 * the unsubscribe link. They produce LiquidJS template text: every `{{ }}` in them is HTML-escaped at render time.
 */

export const COLORS = {
  text: '#1f2937',
  muted: '#6b7280',
  border: '#e5e7eb',
  page: '#f3f4f6',
  card: '#ffffff',
  accent: '#111827',
  accentText: '#ffffff',
} as const;

const FONT = "-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";

/** A heading, as the first thing in the card. */
export const heading = (text: string) =>
  `<h1 style="margin:0 0 16px;font-family:${FONT};font-size:24px;line-height:32px;font-weight:700;color:${COLORS.text};">${text}</h1>`;

export const paragraph = (text: string) =>
  `<p style="margin:0 0 16px;font-family:${FONT};font-size:16px;line-height:24px;color:${COLORS.text};">${text}</p>`;

export const small = (text: string) =>
  `<p style="margin:0 0 8px;font-family:${FONT};font-size:13px;line-height:20px;color:${COLORS.muted};">${text}</p>`;

/**
 * A bulletproof button (a padded link inside a table cell: it survives clients that drop `display:inline-block`).
 * `href` is a Liquid expression; the whole button is left out when it renders empty.
 */
export const button = (label: string, href: string) => `{% if ${href} %}
<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="margin:24px 0;">
  <tr>
    <td align="center" bgcolor="${COLORS.accent}" style="border-radius:6px;">
      <a href="{{ ${href} }}" target="_blank" style="display:inline-block;padding:14px 28px;font-family:${FONT};font-size:16px;font-weight:600;line-height:20px;color:${COLORS.accentText};text-decoration:none;border-radius:6px;">${label}</a>
    </td>
  </tr>
</table>
{% endif %}`;

/**
 * The lines of a cart, checkout or order (`lines` is the Liquid path of the object holding `line_items`): image,
 * linked title, variant, quantity and line price, then the total when known.
 */
export const lineItems = (
  owner: string,
  totalLabel = 'Total',
) => `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="margin:8px 0 8px;border-collapse:collapse;">
{% for line in ${owner}.line_items %}
  <tr>
    <td width="72" style="width:72px;padding:12px 0;border-bottom:1px solid ${COLORS.border};vertical-align:top;">
      {% if line.image_url %}<img src="{{ line.image_url }}" width="64" height="64" alt="{{ line.title }}" style="display:block;width:64px;height:64px;object-fit:cover;border:0;border-radius:6px;">{% endif %}
    </td>
    <td style="padding:12px 12px;border-bottom:1px solid ${COLORS.border};vertical-align:top;font-family:${FONT};font-size:15px;line-height:22px;color:${COLORS.text};">
      {% if line.url %}<a href="{{ line.url }}" target="_blank" style="color:${COLORS.text};text-decoration:none;font-weight:600;">{{ line.title }}</a>{% else %}<strong>{{ line.title }}</strong>{% endif %}
      {% if line.variant_title %}<br><span style="font-size:13px;color:${COLORS.muted};">{{ line.variant_title }}</span>{% endif %}
      <br><span style="font-size:13px;color:${COLORS.muted};">Qty {{ line.quantity }}</span>
    </td>
    <td align="right" style="padding:12px 0;border-bottom:1px solid ${COLORS.border};vertical-align:top;white-space:nowrap;font-family:${FONT};font-size:15px;line-height:22px;color:${COLORS.text};">{{ line.line_price | money: ${owner}.currency }}</td>
  </tr>
{% endfor %}
{% if ${owner}.total_price %}
  <tr>
    <td></td>
    <td style="padding:12px 12px 0;font-family:${FONT};font-size:15px;font-weight:700;color:${COLORS.text};">${totalLabel}</td>
    <td align="right" style="padding:12px 0 0;white-space:nowrap;font-family:${FONT};font-size:15px;font-weight:700;color:${COLORS.text};">{{ ${owner}.total_price | money: ${owner}.currency }}</td>
  </tr>
{% endif %}
</table>`;

/** The same lines for the text part. */
export const lineItemsText = (
  owner: string,
  totalLabel = 'Total',
) => `{% for line in ${owner}.line_items %}- {{ line.title }}{% if line.variant_title %} ({{ line.variant_title }}){% endif %} × {{ line.quantity }}{% if line.line_price %}: {{ line.line_price | money: ${owner}.currency }}{% endif %}
{% endfor %}{% if ${owner}.total_price %}${totalLabel}: {{ ${owner}.total_price | money: ${owner}.currency }}
{% endif %}`;

/** A product card: image, title, and a button to the product. */
export const productCard = (
  label: string,
) => `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="margin:8px 0 0;">
  {% if product.image_url %}<tr>
    <td align="center" style="padding:0 0 16px;">
      {% if product.url %}<a href="{{ product.url }}" target="_blank">{% endif %}<img src="{{ product.image_url }}" width="360" alt="{{ product.title }}" style="display:block;width:100%;max-width:360px;height:auto;border:0;border-radius:8px;">{% if product.url %}</a>{% endif %}
    </td>
  </tr>{% endif %}
  <tr>
    <td align="center" style="font-family:${FONT};font-size:18px;line-height:26px;font-weight:600;color:${COLORS.text};">{{ product.title }}{% if product.variant_title %}<br><span style="font-size:14px;font-weight:400;color:${COLORS.muted};">{{ product.variant_title }}</span>{% endif %}</td>
  </tr>
  <tr><td align="center">${button(label, 'product.url')}</td></tr>
</table>`;

/** A key/value table (order details, custom fields). `rows` are `[label, liquid expression]`. */
export const details = (
  rows: readonly (readonly [string, string])[],
) => `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="margin:8px 0 16px;border-collapse:collapse;">
${rows
  .map(
    ([label, expression]) => `{% if ${expression} %}<tr>
    <td style="padding:8px 0;border-bottom:1px solid ${COLORS.border};font-family:${FONT};font-size:14px;color:${COLORS.muted};">${label}</td>
    <td align="right" style="padding:8px 0;border-bottom:1px solid ${COLORS.border};font-family:${FONT};font-size:14px;color:${COLORS.text};">{{ ${expression} }}</td>
  </tr>{% endif %}`,
  )
  .join('\n')}
</table>`;

/** "Hi Ann," or "Hi there," */
export const greeting = '{% if contact.first_name %}Hi {{ contact.first_name }},{% else %}Hi there,{% endif %}';

const footer = (why: string) => `<tr>
  <td style="padding:24px 32px 32px;font-family:${FONT};font-size:12px;line-height:18px;color:${COLORS.muted};text-align:center;">
    ${why}<br>
    <a href="{{ unsubscribe_url }}" target="_blank" style="color:${COLORS.muted};text-decoration:underline;">Unsubscribe</a>
  </td>
</tr>`;

/**
 * The full HTML document: a grey page, a white 600 px card with the store's name on top, the content, and a footer
 * saying why the email was sent. The media query only tightens padding on phones; everything else is inline.
 */
export const frame = (content: string, why: string) => `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="x-apple-disable-message-reformatting">
<title>{{ store.name }}</title>
<style>
  @media only screen and (max-width: 620px) {
    .card { width: 100% !important; border-radius: 0 !important; }
    .pad { padding-left: 20px !important; padding-right: 20px !important; }
  }
</style>
</head>
<body style="margin:0;padding:0;background-color:${COLORS.page};">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="background-color:${COLORS.page};">
  <tr>
    <td align="center" style="padding:24px 8px;">
      <table role="presentation" class="card" width="600" cellpadding="0" cellspacing="0" border="0" style="width:600px;max-width:600px;background-color:${COLORS.card};border-radius:10px;">
        <tr>
          <td class="pad" style="padding:28px 32px 8px;font-family:${FONT};font-size:20px;font-weight:700;color:${COLORS.accent};text-align:left;">{{ store.name }}</td>
        </tr>
        <tr>
          <td class="pad" style="padding:16px 32px 8px;">
${content}
          </td>
        </tr>
${footer(why)}
      </table>
    </td>
  </tr>
</table>
</body>
</html>`;

/** The text part's footer. */
export const textFooter = (why: string) => `
--
${why}
{{ store.name }}
Unsubscribe: {{ unsubscribe_url }}
`;
