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
import { DAY, type FlowPreset, HOUR, ORDER_PAID_SINCE_TRIGGER } from './preset.ts';

const CART_WHY = 'You are receiving this email because you left items in your cart at {{ store.name }}.';

export const abandonedCart: FlowPreset = {
  preset: 'abandoned_cart',
  trigger: 'abandoned_cart',
  name: 'Abandoned cart',
  description:
    'One hour after a cart with an email stops changing, sends its lines (images, quantities, prices) with a button back to the checkout; a reminder follows a day later. Stops as soon as an order is paid.',
  reentry: { type: 'once_per_subject' },
  consent: 'subscribed',
  steps: [
    { type: 'exit_if', id: 'paid-before-first', condition: ORDER_PAID_SINCE_TRIGGER },
    {
      type: 'email',
      id: 'cart-reminder',
      subject:
        '{% if contact.first_name %}{{ contact.first_name }}, you{% else %}You{% endif %} left something in your cart',
      preheader:
        'Your {{ cart.item_count }} item{% if cart.item_count != 1 %}s are{% else %} is{% endif %} saved for you at {{ store.name }}.',
      html: frame(
        `${heading('You left something behind')}
${paragraph(greeting)}
${paragraph('Your cart at {{ store.name }} is saved. Pick up right where you left off:')}
${lineItems('cart')}
${button('Return to your cart', 'cart.checkout_url')}
${small('Items in your cart are not reserved and may sell out.')}`,
        CART_WHY,
      ),
      text: `${greeting}

Your cart at {{ store.name }} is saved. Pick up right where you left off:

${lineItemsText('cart')}
{% if cart.checkout_url %}Return to your cart: {{ cart.checkout_url }}
{% endif %}
Items in your cart are not reserved and may sell out.
${textFooter(CART_WHY)}`,
    },
    { type: 'wait', id: 'wait-1-day', seconds: DAY },
    { type: 'exit_if', id: 'paid-before-second', condition: ORDER_PAID_SINCE_TRIGGER },
    {
      type: 'email',
      id: 'cart-last-call',
      subject: 'Still thinking it over?',
      preheader: 'Your cart at {{ store.name }} is still waiting for you.',
      html: frame(
        `${heading('Still thinking it over?')}
${paragraph(greeting)}
${paragraph('We kept your cart for you. It only takes a minute to finish your order:')}
${lineItems('cart')}
${button('Complete your order', 'cart.checkout_url')}`,
        CART_WHY,
      ),
      text: `${greeting}

We kept your cart for you. It only takes a minute to finish your order:

${lineItemsText('cart')}
{% if cart.checkout_url %}Complete your order: {{ cart.checkout_url }}
{% endif %}${textFooter(CART_WHY)}`,
    },
  ],
};

const CHECKOUT_WHY = 'You are receiving this email because you started a checkout at {{ store.name }}.';

export const checkoutRecovery: FlowPreset = {
  preset: 'checkout_recovery',
  trigger: 'checkout_recovery',
  name: 'Checkout recovery',
  description:
    'When a checkout with an email is not paid after the recovery wait, sends its lines and total with a button to the abandoned checkout URL; a reminder follows a day later. Stops as soon as an order is paid.',
  reentry: { type: 'once_per_subject' },
  consent: 'subscribed',
  steps: [
    { type: 'exit_if', id: 'paid-before-first', condition: ORDER_PAID_SINCE_TRIGGER },
    {
      type: 'email',
      id: 'checkout-reminder',
      subject: 'Complete your order at {{ store.name }}',
      preheader: 'Your checkout is saved: finish it in a minute.',
      html: frame(
        `${heading('Your order is almost complete')}
${paragraph(greeting)}
${paragraph('You were nearly done. Your checkout is saved, with everything you chose:')}
${lineItems('checkout')}
${button('Complete your order', 'checkout.abandoned_checkout_url')}
${small('Questions about your order? Just reply to this email.')}`,
        CHECKOUT_WHY,
      ),
      text: `${greeting}

You were nearly done. Your checkout is saved, with everything you chose:

${lineItemsText('checkout')}
{% if checkout.abandoned_checkout_url %}Complete your order: {{ checkout.abandoned_checkout_url }}
{% endif %}
Questions about your order? Just reply to this email.
${textFooter(CHECKOUT_WHY)}`,
    },
    { type: 'wait', id: 'wait-1-day', seconds: DAY },
    { type: 'exit_if', id: 'paid-before-second', condition: ORDER_PAID_SINCE_TRIGGER },
    {
      type: 'email',
      id: 'checkout-last-call',
      subject: 'Your checkout at {{ store.name }} is waiting',
      preheader: 'Finish your order before your items sell out.',
      html: frame(
        `${heading('Your checkout is waiting')}
${paragraph(greeting)}
${paragraph('Your items are still in your checkout. Finish your order before they sell out:')}
${lineItems('checkout')}
${button('Finish checking out', 'checkout.abandoned_checkout_url')}`,
        CHECKOUT_WHY,
      ),
      text: `${greeting}

Your items are still in your checkout. Finish your order before they sell out:

${lineItemsText('checkout')}
{% if checkout.abandoned_checkout_url %}Finish checking out: {{ checkout.abandoned_checkout_url }}
{% endif %}${textFooter(CHECKOUT_WHY)}`,
    },
  ],
};

const BROWSE_WHY = 'You are receiving this email because you subscribed to news from {{ store.name }}.';

export const browseRecovery: FlowPreset = {
  preset: 'browse_recovery',
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
