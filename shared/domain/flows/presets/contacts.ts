/**
 * Presets about people rather than orders: welcome (new customer, newsletter subscription), back-in-stock notice and
 * custom notification. Welcomes are marketing (`subscribed`); a back-in-stock notice is what the customer asked for
 * (`transactional`); a custom notification is the merchant's to judge, so it starts on the safe side (`subscribed`).
 */
import { button, COLORS, frame, greeting, heading, paragraph, productCard, small, textFooter } from './layout.ts';
import type { FlowPreset } from './preset.ts';

const NEWS_WHY = 'You are receiving this email because you signed up at {{ store.name }}.';

const welcome = (id: string, title: string, intro: string) => ({
  type: 'email' as const,
  id,
  subject: 'Welcome to {{ store.name }}{% if contact.first_name %}, {{ contact.first_name }}{% endif %}!',
  preheader: 'Thanks for joining {{ store.name }}. Here is what to expect.',
  html: frame(
    `${heading(title)}
${paragraph(greeting)}
${paragraph(intro)}
${paragraph('Expect news about new arrivals, restocks and offers reserved for subscribers, a few times a month at most.')}
${small('You can unsubscribe at any time with the link at the bottom of every email.')}`,
    NEWS_WHY,
  ),
  text: `${greeting}

${intro}

Expect news about new arrivals, restocks and offers reserved for subscribers, a few times a month at most.
You can unsubscribe at any time with the link at the bottom of every email.
${textFooter(NEWS_WHY)}`,
});

export const customerCreated: FlowPreset = {
  trigger: 'customer_created',
  name: 'Welcome new customers',
  description: 'When a customer account is created, welcomes them to the store. Once per contact.',
  reentry: { type: 'once_per_contact' },
  consent: 'subscribed',
  steps: [
    welcome(
      'welcome-customer',
      'Welcome to {{ store.name }}',
      'Thanks for creating an account with {{ store.name }}. Your account keeps your orders, addresses and favourites in one place.',
    ),
  ],
};

export const subscriptionWelcome: FlowPreset = {
  trigger: 'subscription_welcome',
  name: 'Newsletter welcome',
  description: 'When someone subscribes through a form, thanks them and says what to expect. Once per contact.',
  reentry: { type: 'once_per_contact' },
  consent: 'subscribed',
  steps: [
    welcome(
      'welcome-subscriber',
      'Thanks for subscribing',
      'You are now on the list at {{ store.name }}: you will be the first to hear about what is new.',
    ),
  ],
};

const RESTOCK_WHY =
  'You are receiving this email because you asked {{ store.name }} to tell you when this product is back in stock.';

export const backInStock: FlowPreset = {
  trigger: 'back_in_stock',
  name: 'Back in stock',
  description:
    'When a product someone asked about is restocked, shows it with a button to the product page, right away.',
  reentry: { type: 'cooldown', seconds: 60 },
  consent: 'transactional',
  steps: [
    {
      type: 'email',
      id: 'back-in-stock',
      subject: '{{ product.title | default: "Your product" }} is back in stock',
      preheader:
        'Good news: {{ product.title | default: "the product you asked about" }} is available again at {{ store.name }}.',
      html: frame(
        `${heading('It is back!')}
${paragraph(greeting)}
${paragraph('Good news: the product you asked about is available again. Popular items sell out quickly, so do not wait too long.')}
${productCard('Shop now')}`,
        RESTOCK_WHY,
      ),
      text: `${greeting}

Good news: {{ product.title | default: "the product you asked about" }}{% if product.variant_title %} ({{ product.variant_title }}){% endif %} is available again at {{ store.name }}.
Popular items sell out quickly, so do not wait too long.
{% if product.url %}Shop now: {{ product.url }}
{% endif %}${textFooter(RESTOCK_WHY)}`,
    },
  ],
};

const CUSTOM_WHY = 'You are receiving this email from {{ store.name }}.';

/** The `custom` keys the template uses for itself rather than listing them. */
const OWN_KEYS = ['subject', 'preheader', 'title', 'message', 'url', 'button_label'];
/** `inner` once per scalar field of `custom` (`custom_fields`), except the template's own keys. */
const listed = (inner: string) =>
  `{% for field in custom_fields %}{% unless ${OWN_KEYS.map((key) => `field.name == "${key}"`).join(' or ')} %}${inner}{% endunless %}{% endfor %}`;

/** Every other scalar field of `custom` as a label/value table (nested objects are left to the merchant's template). */
const CUSTOM_FIELDS = `{% if custom_fields != empty %}<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="margin:8px 0 16px;border-collapse:collapse;">
${listed(`<tr>
    <td style="padding:8px 0;border-bottom:1px solid ${COLORS.border};font-family:Helvetica,Arial,sans-serif;font-size:14px;color:${COLORS.muted};">{{ field.label }}</td>
    <td align="right" style="padding:8px 0;border-bottom:1px solid ${COLORS.border};font-family:Helvetica,Arial,sans-serif;font-size:14px;color:${COLORS.text};">{{ field.value }}</td>
  </tr>`)}
</table>{% endif %}`;

export const customNotification: FlowPreset = {
  trigger: 'custom_notification',
  name: 'Custom notification',
  description:
    'Sent when your system calls flow/notify with this flow\u2019s id; shows every field of `custom` (edit the template to word it your way; custom.url, when given, becomes a button).',
  reentry: { type: 'cooldown', seconds: 60 },
  consent: 'subscribed',
  steps: [
    {
      type: 'email',
      id: 'notification',
      subject: '{% if custom.subject %}{{ custom.subject }}{% else %}An update from {{ store.name }}{% endif %}',
      preheader: '{{ custom.preheader | default: custom.message }}',
      html: frame(
        `${heading('{{ custom.title | default: "An update for you" }}')}
${paragraph(greeting)}
{% if custom.message %}${paragraph('{{ custom.message }}')}{% endif %}
${CUSTOM_FIELDS}
${button('{{ custom.button_label | default: "Learn more" }}', 'custom.url')}`,
        CUSTOM_WHY,
      ),
      text: `{% if custom.title %}{{ custom.title }}

{% endif %}${greeting}

{% if custom.message %}{{ custom.message }}

{% endif %}${listed(`{{ field.label }}: {{ field.value }}
`)}{% if custom.url %}
{{ custom.button_label | default: "Learn more" }}: {{ custom.url }}
{% endif %}${textFooter(CUSTOM_WHY)}`,
    },
  ],
};
