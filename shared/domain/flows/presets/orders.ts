/**
 * Order presets: paid (confirmation), fulfilled (shipped, with tracking), status changed, refunded. Messages about an
 * order the customer placed: consent `transactional` (suppression still applies), one email at once.
 */
import {
  button,
  details,
  frame,
  greeting,
  heading,
  lineItems,
  lineItemsText,
  paragraph,
  small,
  textFooter,
} from './layout.ts';
import type { FlowPreset, PresetStep } from './preset.ts';

const WHY = 'You are receiving this email about your order {{ order.name }} at {{ store.name }}.';

const ORDER_DETAILS = details([
  ['Order', 'order.name'],
  ['Payment', 'order.payment_method'],
  ['Shipping', 'order.shipping_method'],
]);

const ORDER_DETAILS_TEXT = `Order: {{ order.name }}
{% if order.payment_method %}Payment: {{ order.payment_method }}
{% endif %}{% if order.shipping_method %}Shipping: {{ order.shipping_method }}
{% endif %}`;

const TRACKING = `{% if order.tracking_number %}${details([
  ['Carrier', 'order.tracking_company'],
  ['Tracking number', 'order.tracking_number'],
])}{% endif %}`;

const orderEmail = (
  id: string,
  texts: { subject: string; preheader: string; title: string; intro: string; introText?: string; after?: string },
  cta: { label: string; href: string },
): PresetStep => ({
  type: 'email',
  id,
  subject: texts.subject,
  preheader: texts.preheader,
  html: frame(
    `${heading(texts.title)}
${paragraph(greeting)}
${paragraph(texts.intro)}
${texts.after ?? ''}
${ORDER_DETAILS}
${lineItems('order')}
${button(cta.label, cta.href)}
${small('Questions about your order? Just reply to this email.')}`,
    WHY,
  ),
  text: `${greeting}

${texts.introText ?? texts.intro}

${ORDER_DETAILS_TEXT}
${lineItemsText('order')}
{% if ${cta.href} %}${cta.label}: {{ ${cta.href} }}
{% endif %}
Questions about your order? Just reply to this email.
${textFooter(WHY)}`,
});

export const orderPaid: FlowPreset = {
  trigger: 'order_paid',
  name: 'Order confirmation',
  description: 'When an order is paid, confirms it with its lines, total and a link to the order status page.',
  reentry: { type: 'once_per_subject' },
  consent: 'transactional',
  steps: [
    orderEmail(
      'order-confirmation',
      {
        subject: 'Order {{ order.name }} confirmed',
        preheader: 'Thank you for your order at {{ store.name }}. Here is your receipt.',
        title: 'Thank you for your order',
        intro: 'We received your payment and are getting your order ready. Here is what you ordered:',
      },
      { label: 'View your order', href: 'order.order_status_url' },
    ),
  ],
};

export const orderFulfilled: FlowPreset = {
  trigger: 'order_fulfilled',
  name: 'Order shipped',
  description:
    'When an order is fulfilled, says it is on its way with the carrier, the tracking number and a tracking link.',
  reentry: { type: 'once_per_subject' },
  consent: 'transactional',
  steps: [
    orderEmail(
      'order-shipped',
      {
        subject: 'Your order {{ order.name }} is on its way',
        preheader: 'Good news: your order from {{ store.name }} has shipped.',
        title: 'Your order is on its way',
        intro: 'Good news: your order has shipped.',
        introText: `Good news: your order has shipped.
{% if order.tracking_number %}Carrier: {{ order.tracking_company }}
Tracking number: {{ order.tracking_number }}
{% endif %}`,
        after: TRACKING,
      },
      { label: 'Track your package', href: 'order.tracking_url' },
    ),
  ],
};

export const orderStatusChanged: FlowPreset = {
  trigger: 'order_status_changed',
  name: 'Order status update',
  description: 'When an order changes status (for example cancelled), tells the customer its new status.',
  reentry: { type: 'cooldown', seconds: 60 },
  consent: 'transactional',
  steps: [
    orderEmail(
      'order-status',
      {
        subject: 'Order {{ order.name }}: {{ order.status }}',
        preheader: 'An update about your order at {{ store.name }}.',
        title: 'An update about your order',
        intro: 'The status of your order {{ order.name }} is now <strong>{{ order.status }}</strong>.',
        introText: 'The status of your order {{ order.name }} is now {{ order.status }}.',
      },
      { label: 'View your order', href: 'order.order_status_url' },
    ),
  ],
};

export const orderRefunded: FlowPreset = {
  trigger: 'order_refunded',
  name: 'Refund confirmation',
  description: 'When an order is refunded, confirms the refund and lists the order.',
  reentry: { type: 'once_per_subject' },
  consent: 'transactional',
  steps: [
    orderEmail(
      'order-refunded',
      {
        subject: 'Your refund for order {{ order.name }}',
        preheader: 'We processed a refund for your order at {{ store.name }}.',
        title: 'Your refund is on its way',
        intro:
          'We processed a refund for your order {{ order.name }}. Depending on your bank it can take a few days to show on your statement.',
      },
      { label: 'View your order', href: 'order.order_status_url' },
    ),
  ],
};
