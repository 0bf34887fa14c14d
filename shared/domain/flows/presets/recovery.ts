/**
 * Recovery presets: abandoned cart, checkout recovery, browse recovery. Marketing mail: consent `subscribed`.
 *
 * Timing: the abandoned-cart trigger already fires one hour after the cart's last change (the cart timer), and the
 * checkout-recovery trigger after the checkout wait, so their first email goes out at once; a reminder follows a day
 * later unless an order was paid meanwhile. Browse recovery fires at the page view, so it waits two hours first (an
 * email while the visitor is still on the site reads as surveillance, not service).
 */
import {
  button,
  frame,
  greeting,
  heading,
  lineItems,
  lineItemsText,
  paragraph,
  productCard,
  small,
  textFooter,
} from './layout.ts';
import { DAY, type FlowPreset, HOUR, ORDER_PAID_SINCE_TRIGGER, type PresetStep } from './preset.ts';

/** A cart or checkout email: its lines, then a button back to finish the order (and a note under it, if any). */
const linesEmail = (
  source: 'cart' | 'checkout',
  why: string,
  email: {
    id: string;
    subject: string;
    preheader: string;
    title: string;
    intro: string;
    cta: { label: string; href: string };
    note?: string;
  },
): PresetStep => ({
  type: 'email',
  id: email.id,
  subject: email.subject,
  preheader: email.preheader,
  html: frame(
    `${heading(email.title)}
${paragraph(greeting)}
${paragraph(email.intro)}
${lineItems(source)}
${button(email.cta.label, email.cta.href)}${email.note ? `\n${small(email.note)}` : ''}`,
    why,
  ),
  text: `${greeting}

${email.intro}

${lineItemsText(source)}
{% if ${email.cta.href} %}${email.cta.label}: {{ ${email.cta.href} }}
{% endif %}${email.note ? `\n${email.note}\n` : ''}${textFooter(why)}`,
});

const CART_WHY = 'You are receiving this email because you left items in your cart at {{ store.name }}.';

export const abandonedCart: FlowPreset = {
  trigger: 'abandoned_cart',
  name: 'Abandoned cart',
  description:
    'One hour after a cart with an email stops changing, sends its lines (images, quantities, prices) with a button back to the checkout; a reminder follows a day later. Stops as soon as an order is paid.',
  reentry: { type: 'once_per_subject' },
  consent: 'subscribed',
  steps: [
    { type: 'exit_if', id: 'paid-before-first', condition: ORDER_PAID_SINCE_TRIGGER },
    linesEmail('cart', CART_WHY, {
      id: 'cart-reminder',
      subject:
        '{% if contact.first_name %}{{ contact.first_name }}, you{% else %}You{% endif %} left something in your cart',
      preheader:
        'Your {{ cart.item_count }} item{% if cart.item_count != 1 %}s are{% else %} is{% endif %} saved for you at {{ store.name }}.',
      title: 'You left something behind',
      intro: 'Your cart at {{ store.name }} is saved. Pick up right where you left off:',
      cta: { label: 'Return to your cart', href: 'cart.checkout_url' },
      note: 'Items in your cart are not reserved and may sell out.',
    }),
    { type: 'wait', id: 'wait-1-day', seconds: DAY },
    { type: 'exit_if', id: 'paid-before-second', condition: ORDER_PAID_SINCE_TRIGGER },
    linesEmail('cart', CART_WHY, {
      id: 'cart-last-call',
      subject: 'Still thinking it over?',
      preheader: 'Your cart at {{ store.name }} is still waiting for you.',
      title: 'Still thinking it over?',
      intro: 'We kept your cart for you. It only takes a minute to finish your order:',
      cta: { label: 'Complete your order', href: 'cart.checkout_url' },
    }),
  ],
};

const CHECKOUT_WHY = 'You are receiving this email because you started a checkout at {{ store.name }}.';

export const checkoutRecovery: FlowPreset = {
  trigger: 'checkout_recovery',
  name: 'Checkout recovery',
  description:
    'When a checkout with an email is not paid after the recovery wait, sends its lines and total with a button to the abandoned checkout URL; a reminder follows a day later. Stops as soon as an order is paid.',
  reentry: { type: 'once_per_subject' },
  consent: 'subscribed',
  steps: [
    { type: 'exit_if', id: 'paid-before-first', condition: ORDER_PAID_SINCE_TRIGGER },
    linesEmail('checkout', CHECKOUT_WHY, {
      id: 'checkout-reminder',
      subject: 'Complete your order at {{ store.name }}',
      preheader: 'Your checkout is saved: finish it in a minute.',
      title: 'Your order is almost complete',
      intro: 'You were nearly done. Your checkout is saved, with everything you chose:',
      cta: { label: 'Complete your order', href: 'checkout.abandoned_checkout_url' },
      note: 'Questions about your order? Just reply to this email.',
    }),
    { type: 'wait', id: 'wait-1-day', seconds: DAY },
    { type: 'exit_if', id: 'paid-before-second', condition: ORDER_PAID_SINCE_TRIGGER },
    linesEmail('checkout', CHECKOUT_WHY, {
      id: 'checkout-last-call',
      subject: 'Your checkout at {{ store.name }} is waiting',
      preheader: 'Finish your order before your items sell out.',
      title: 'Your checkout is waiting',
      intro: 'Your items are still in your checkout. Finish your order before they sell out:',
      cta: { label: 'Finish checking out', href: 'checkout.abandoned_checkout_url' },
    }),
  ],
};

const BROWSE_WHY = 'You are receiving this email because you subscribed to news from {{ store.name }}.';

export const browseRecovery: FlowPreset = {
  trigger: 'browse_recovery',
  name: 'Browse recovery',
  description:
    'Two hours after a known customer views a product, shows that product with a button back to it, unless they ordered meanwhile. At most once a week per contact.',
  reentry: { type: 'cooldown', seconds: 7 * DAY },
  consent: 'subscribed',
  steps: [
    { type: 'wait', id: 'wait-2-hours', seconds: 2 * HOUR },
    { type: 'exit_if', id: 'ordered-meanwhile', condition: ORDER_PAID_SINCE_TRIGGER },
    {
      type: 'email',
      id: 'viewed-product',
      subject: 'Still thinking about {{ product.title }}?',
      preheader: 'Take another look at {{ product.title }} at {{ store.name }}.',
      html: frame(
        `${heading('Take another look')}
${paragraph(greeting)}
${paragraph('You recently looked at this. It is still here if you want to take a closer look:')}
${productCard('View product')}`,
        BROWSE_WHY,
      ),
      text: `${greeting}

You recently looked at {{ product.title }}{% if product.variant_title %} ({{ product.variant_title }}){% endif %}. It is still here if you want to take a closer look:
{% if product.url %}{{ product.url }}
{% endif %}${textFooter(BROWSE_WHY)}`,
    },
  ],
};
