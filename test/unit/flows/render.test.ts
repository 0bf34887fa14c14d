/**
 * Flow email rendering: every preset renders against a context built from a trigger shaped exactly as the ingest worker
 * and the timers fire it; event values are HTML-escaped in the HTML part and only there; links that are not http(s)
 * are dropped; broken templates are refused; hostile templates are stopped by the limits.
 */
import { describe, expect, it } from 'vitest';
import type { Customer } from '#shared/domain/customers/model.ts';
import type { FlowStep } from '#shared/domain/flows/flow.ts';
import { checkBuiltDefinition } from '#shared/domain/flows/flow-schema.ts';
import { buildSteps, PRESETS } from '#shared/domain/flows/presets/index.ts';
import { type EmailStep, renderEmail, TemplateError, validateTemplates } from '#shared/domain/flows/render.ts';
import { buildTemplateContext } from '#shared/domain/flows/template-context.ts';
import type { FlowKind, FlowTrigger, PRESET_KINDS } from '#shared/domain/flows/trigger.ts';

type PresetKind = (typeof PRESET_KINDS)[number];

const STORE = { id: 'st_render', name: 'Acme Outfitters' };
const UNSUBSCRIBE = 'https://send.example.com/unsubscribe/tok_123';

const trigger = (kind: FlowKind, context: Record<string, unknown>, subject = { type: 'x', id: '1' }): FlowTrigger => ({
  id: `event#src-1#${kind}`,
  storeId: STORE.id,
  kind,
  subject,
  contact: { email: 'ann@example.com', customerId: 'c-1' },
  cause: { endpoint: 'test', sourceId: 'src-1' },
  context,
  at: Date.UTC(2025, 0, 15, 12, 0, 0),
});

const customer: Customer = {
  storeId: STORE.id,
  id: 'ct_1',
  originId: 'c-1',
  email: 'ann@example.com',
  firstName: 'Ann',
  lastName: 'Lee',
  countryCode: 'US',
  platformTags: ['vip'],
  categoryTags: [{ category: 'tier', value: 'gold' }],
  emailConsent: { state: 'subscribed' },
  attributes: {},
  createdAt: 1_700_000_000,
  updatedAt: 1_700_000_000_000,
  revision: 1,
};

const orderDetails = {
  name: '#1001',
  order_status: 'paid',
  total_price: '59.90',
  currency: 'USD',
  order_status_url: 'https://shop.example.com/orders/1001',
  payment_method: 'Card',
  line_items: [
    {
      product_id: 'p-1',
      title: 'Trail Runner',
      quantity: 2,
      price: '24.95',
      src: 'https://cdn.example.com/trail.jpg',
      product_url: 'https://shop.example.com/p/trail',
      tracking_company: 'UPS',
      tracking_number: '1Z999',
      tracking_url: 'https://ups.example.com/track/1Z999',
    },
    { product_id: 'p-2', title: 'Socks', quantity: 1, price: '10.00' },
  ],
};

/** One trigger per kind, with the context its producer really puts in it (see ingest/apply and timers). */
const TRIGGERS: Record<PresetKind, FlowTrigger> = {
  customer_created: trigger('customer_created', {
    customer: { id: 'ct_1', originId: 'c-1', email: 'ann@example.com', firstName: 'Ann', lastName: 'Lee' },
  }),
  subscription_welcome: trigger('subscription_welcome', {
    customer: { id: 'ct_1', originId: 'c-1', email: 'ann@example.com', firstName: 'Ann' },
  }),
  abandoned_cart: trigger(
    'abandoned_cart',
    {
      cart: {
        token: 'cart-1',
        checkoutUrl: 'https://shop.example.com/checkout/cart-1',
        firstName: 'Ann',
        lineItems: [
          {
            product_id: 'p-1',
            variant_id: 'v-1',
            title: 'Trail Runner',
            quantity: 2,
            price: '24.95',
            product_image_url: 'https://cdn.example.com/trail.jpg',
            product_url: 'https://shop.example.com/p/trail',
          },
          { product_id: 'p-2', variant_id: 'v-2', title: 'Wool Socks', quantity: 1, price: '10.00' },
        ],
      },
    },
    { type: 'cart', id: 'cart-1' },
  ),
  checkout_recovery: trigger(
    'checkout_recovery',
    {
      checkout: {
        token: 'co-1',
        cartToken: 'cart-1',
        currency: 'EUR',
        total_price: '34.95',
        abandoned_checkout_url: 'https://shop.example.com/recover/co-1',
        line_items: [{ product_id: 'p-1', variant_id: 'v-1', title: 'Trail Runner', quantity: 1, price: '34.95' }],
      },
    },
    { type: 'checkout', id: 'co-1' },
  ),
  browse_recovery: trigger('browse_recovery', {
    product: {
      id: 'p-9',
      title: 'Summit Jacket',
      src: 'https://cdn.example.com/jacket.jpg',
      purchaseUrl: 'https://shop.example.com/p/jacket',
    },
    page: { url: 'https://shop.example.com/p/jacket', title: 'Summit Jacket' },
    requestId: 'req-1',
  }),
  back_in_stock: trigger('back_in_stock', {
    productId: 'p-7',
    variantId: 'v-7',
    subscription: { product_variant_name: 'Size M', first_name: 'Ann' },
    product: {
      id: 'p-7',
      title: 'Rain Shell',
      src: 'https://cdn.example.com/shell.jpg',
      purchaseUrl: 'https://shop.example.com/p/shell',
    },
  }),
  order_paid: trigger('order_paid', { order: { id: '1001', status: 'paid', ...orderDetails } }),
  order_fulfilled: trigger('order_fulfilled', { order: { id: '1001', status: 'fulfilled', ...orderDetails } }),
  order_status_changed: trigger('order_status_changed', {
    order: { id: '1001', status: 'cancelled', previousStatus: 'paid', ...orderDetails },
  }),
  order_refunded: trigger('order_refunded', { order: { id: '1001', status: 'refunded', ...orderDetails } }),
  custom_notification: trigger('custom_notification', {
    flow_id: 'fl_x',
    custom: {
      title: 'Points update',
      message: 'You earned points.',
      points_balance: 1200,
      level: 'gold',
      history: [{ at: 1, points: 5 }],
      meta: { source: 'pos' },
    },
    first_name: 'Ann',
  }),
};

/** What each preset's first email must show, in HTML and in text. */
const MUST_SHOW: Record<PresetKind, string[]> = {
  customer_created: ['Ann', 'Acme Outfitters'],
  subscription_welcome: ['Ann', 'Acme Outfitters'],
  abandoned_cart: [
    'Trail Runner',
    'Wool Socks',
    // Carts carry no currency: plain amounts.
    '49.90',
    '10.00',
    '59.90',
    'https://shop.example.com/checkout/cart-1',
  ],
  checkout_recovery: ['Trail Runner', '€34.95', 'https://shop.example.com/recover/co-1'],
  browse_recovery: ['Summit Jacket', 'https://shop.example.com/p/jacket'],
  back_in_stock: ['Rain Shell', 'Size M', 'https://shop.example.com/p/shell'],
  order_paid: ['#1001', 'Trail Runner', '$49.90', '$59.90', 'https://shop.example.com/orders/1001'],
  order_fulfilled: ['#1001', 'UPS', '1Z999', 'https://ups.example.com/track/1Z999'],
  order_status_changed: ['#1001', 'cancelled'],
  order_refunded: ['#1001', 'refund'],
  custom_notification: ['Points update', 'You earned points.', 'Points balance', '1200', 'gold'],
};

const contextOf = (kind: PresetKind, contact: Customer | undefined = customer) =>
  buildTemplateContext({ trigger: TRIGGERS[kind], contact, store: STORE, unsubscribeUrl: UNSUBSCRIBE });

const emailSteps = (steps: readonly FlowStep[]) => steps.filter((step): step is EmailStep => step.type === 'email');

const presetSteps = (kind: PresetKind) =>
  buildSteps(PRESETS[kind], { from: { email: 'hello@acme.example', name: 'Acme' } });

const step = (parts: Partial<EmailStep>): EmailStep => ({
  type: 'email',
  id: 'e',
  from: { email: 'hello@acme.example' },
  subject: 'Hello',
  ...parts,
});

describe('presets', () => {
  it.each(Object.keys(PRESETS) as PresetKind[])('%s: passes the API rules and renders every email', async (kind) => {
    const preset = PRESETS[kind];
    expect(preset.trigger).toBe(kind);
    const definition = checkBuiltDefinition({
      name: preset.name,
      trigger: preset.trigger,
      enabled: true,
      reentry: preset.reentry,
      consent: preset.consent,
      steps: presetSteps(kind),
    });
    const emails = emailSteps(definition.steps);
    expect(emails.length).toBeGreaterThan(0);
    for (const email of emails) {
      const rendered = await renderEmail(email, contextOf(kind));
      expect(rendered.subject.length).toBeGreaterThan(0);
      expect(rendered.subject).not.toMatch(/[\r\n]|\{\{|\{%/);
      for (const part of [rendered.html ?? '', rendered.text ?? '']) {
        expect(part).not.toMatch(/\{\{|\{%|\[object Object\]/);
        expect(part).toContain(UNSUBSCRIBE);
        expect(part).toContain('Acme Outfitters');
      }
      expect(rendered.html).toMatch(/^<!DOCTYPE html>/);
      expect(rendered.html).toContain('name="viewport"');
    }
    const first = await renderEmail(emails[0] as EmailStep, contextOf(kind));
    for (const shown of MUST_SHOW[kind]) {
      expect(first.html, `html of ${kind} shows ${shown}`).toContain(shown);
      expect(first.text, `text of ${kind} shows ${shown}`).toContain(shown);
    }
  });

  it('abandoned cart: one row per line with its image, linked title, quantity and line price', async () => {
    const [email] = emailSteps(presetSteps('abandoned_cart'));
    const { html } = await renderEmail(email as EmailStep, contextOf('abandoned_cart'));
    expect(html).toContain('<img src="https://cdn.example.com/trail.jpg"');
    expect(html).toContain('<a href="https://shop.example.com/p/trail"');
    expect(html).toContain('Qty 2');
    expect(html).toContain('<a href="https://shop.example.com/checkout/cart-1"');
    // The line without an image has no broken <img>.
    expect(html?.match(/<img /g)).toHaveLength(1);
  });

  it('abandoned cart: exits before each email when an order was paid since the trigger', () => {
    const steps = presetSteps('abandoned_cart');
    const exits = steps.filter((s) => s.type === 'exit_if');
    expect(exits.length).toBeGreaterThan(0);
    for (const exit of exits) {
      expect(exit).toMatchObject({
        condition: { conditions: [{ field: 'activity.order_paid_since_trigger', op: 'exists' }] },
      });
    }
    // The first email is not delayed: the trigger itself fires an hour after the cart's last change.
    expect(steps.findIndex((s) => s.type === 'email')).toBeLessThan(steps.findIndex((s) => s.type === 'wait'));
  });

  it('greets contacts without a name and without a contact record', async () => {
    const context = buildTemplateContext({
      trigger: { ...TRIGGERS.order_paid, contact: { email: 'guest@example.com' } },
      store: STORE,
      unsubscribeUrl: UNSUBSCRIBE,
    });
    const [email] = emailSteps(presetSteps('order_paid'));
    const rendered = await renderEmail(email as EmailStep, context);
    expect(rendered.text).toContain('Hi there,');
  });
});

describe('template context', () => {
  it('merges the contact record over the trigger and exposes cart totals', () => {
    const context = contextOf('abandoned_cart');
    expect(context.contact).toMatchObject({
      email: 'ann@example.com',
      first_name: 'Ann',
      last_name: 'Lee',
      name: 'Ann Lee',
      customer_id: 'c-1',
      tags: ['vip'],
      category_tags: [{ category: 'tier', value: 'gold' }],
      email_consent: 'subscribed',
    });
    expect(context.cart).toMatchObject({
      token: 'cart-1',
      checkout_url: 'https://shop.example.com/checkout/cart-1',
      item_count: 3,
      total_price: '59.90',
    });
    expect((context.cart?.line_items as unknown[] | undefined)?.[0]).toMatchObject({
      title: 'Trail Runner',
      line_price: '49.90',
      image_url: 'https://cdn.example.com/trail.jpg',
      url: 'https://shop.example.com/p/trail',
    });
    expect(context.store).toEqual(STORE);
    expect(context.unsubscribe_url).toBe(UNSUBSCRIBE);
    expect(context.trigger).toEqual({
      kind: 'abandoned_cart',
      subject_type: 'cart',
      subject_id: 'cart-1',
      at: '2025-01-15T12:00:00.000Z',
    });
  });

  it('drops links that are not absolute http(s) URLs, at any depth', () => {
    const hostile = trigger('abandoned_cart', {
      cart: {
        token: 't',
        checkoutUrl: 'javascript:alert(1)',
        lineItems: [{ title: 'x', quantity: 1, product_url: 'data:text/html,hi', product_image_url: '//evil' }],
      },
    });
    const context = buildTemplateContext({ trigger: hostile, store: STORE, unsubscribeUrl: UNSUBSCRIBE });
    expect(context.cart?.checkout_url).toBeUndefined();
    const line = (context.cart?.line_items as Record<string, unknown>[] | undefined)?.[0];
    expect(line?.url).toBeUndefined();
    expect(line?.product_url).toBeUndefined();
    expect(line?.image_url).toBeUndefined();
  });

  it('gives back-in-stock and custom notification their own objects only', () => {
    expect(contextOf('back_in_stock').product).toMatchObject({
      id: 'p-7',
      title: 'Rain Shell',
      variant_id: 'v-7',
      variant_title: 'Size M',
      url: 'https://shop.example.com/p/shell',
      image_url: 'https://cdn.example.com/shell.jpg',
    });
    const custom = contextOf('custom_notification', undefined);
    expect(custom.custom).toMatchObject({ points_balance: 1200, level: 'gold', meta: { source: 'pos' } });
    // Only scalars are listed (a nested object would print as "[object Object]").
    expect(custom.custom_fields).toEqual([
      { name: 'title', label: 'Title', value: 'Points update' },
      { name: 'message', label: 'Message', value: 'You earned points.' },
      { name: 'points_balance', label: 'Points balance', value: 1200 },
      { name: 'level', label: 'Level', value: 'gold' },
    ]);
    expect(custom.contact.first_name).toBe('Ann');
    expect(custom.cart).toBeUndefined();
    expect(custom.order).toBeUndefined();
  });
});

describe('renderEmail', () => {
  const hostileContext = () => {
    const context = contextOf('abandoned_cart');
    return { ...context, contact: { ...context.contact, first_name: '<script>alert("x")</script>' } };
  };

  it('HTML-escapes values in the HTML part and the preheader, not in the subject or the text', async () => {
    const rendered = await renderEmail(
      step({
        subject: 'Hi {{ contact.first_name }}',
        preheader: 'For {{ contact.first_name }}',
        html: '<p>Hi {{ contact.first_name }}</p>',
        text: 'Hi {{ contact.first_name }}',
      }),
      hostileContext(),
    );
    expect(rendered.html).not.toContain('<script>');
    expect(rendered.html).toContain('<p>Hi &lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;</p>');
    expect(rendered.html).toContain('For &lt;script&gt;');
    expect(rendered.subject).toBe('Hi <script>alert("x")</script>');
    expect(rendered.text).toBe('Hi <script>alert("x")</script>');
  });

  it('folds line breaks from values into spaces in the subject', async () => {
    const context = contextOf('custom_notification');
    const rendered = await renderEmail(step({ subject: '{{ custom.title }}', text: 'x' }), {
      ...context,
      custom: { title: 'Hello\r\nBcc: victim@example.com' },
    });
    expect(rendered.subject).toBe('Hello Bcc: victim@example.com');
  });

  it('shows a first name set to a link as text in the HTML, and one with CR/LF on one subject line', async () => {
    const context = contextOf('abandoned_cart');
    const parts = step({
      subject: 'Hi {{ contact.first_name }}',
      html: '<p>Hi {{ contact.first_name }}</p>',
      text: 'Hi {{ contact.first_name }}',
    });
    const link = '<a href="https://evil.example/refund">Claim your refund</a>';
    const marked = await renderEmail(parts, { ...context, contact: { ...context.contact, first_name: link } });
    expect(marked.html).toBe(
      '<p>Hi &lt;a href=&#34;https://evil.example/refund&#34;&gt;Claim your refund&lt;/a&gt;</p>',
    );
    expect(marked.text).toBe(`Hi ${link}`);
    const broken = await renderEmail(parts, {
      ...context,
      contact: { ...context.contact, first_name: 'Eve\r\nBcc: spy@evil.example' },
    });
    expect(broken.subject).toBe('Hi Eve Bcc: spy@evil.example');
  });

  it('puts the preheader as a hidden block first in the body', async () => {
    const rendered = await renderEmail(
      step({ preheader: 'Preview {{ store.name }}', html: '<html><body class="x"><p>Body</p></body></html>' }),
      contextOf('order_paid'),
    );
    expect(rendered.html).toMatch(/^<html><body class="x"><div style="display:none;[^"]*">Preview Acme Outfitters/);
    expect(rendered.html?.indexOf('Preview')).toBeLessThan(rendered.html?.indexOf('<p>Body</p>') ?? 0);
    const fragment = await renderEmail(step({ preheader: 'P', html: '<p>B</p>' }), contextOf('order_paid'));
    expect(fragment.html).toMatch(/^<div style="display:none;[^"]*">P/);
  });

  it('fails a subject that renders empty, naming it', async () => {
    await expect(
      renderEmail(step({ subject: '{{ custom.nothing }}', text: 'x' }), contextOf('order_paid')),
    ).rejects.toThrow('subject: renders empty for this contact');
  });

  it('renders only the parts the step has', async () => {
    const textOnly = await renderEmail(step({ text: 'Hi' }), contextOf('order_paid'));
    expect(textOnly).toEqual({ subject: 'Hello', text: 'Hi' });
  });

  it('formats money with the money filter', async () => {
    const rendered = await renderEmail(
      step({ text: '{{ "12.5" | money: "EUR" }}|{{ 3 | money }}|{{ "x" | money: "USD" }}|{{ 7 | money: "ZZZZ" }}' }),
      contextOf('order_paid'),
    );
    expect(rendered.text).toBe('€12.50|3.00||7.00');
  });

  it('stops a loop that never ends (render time limit)', async () => {
    // Ranges are at most 1,000 items (template-cost.ts): three nested are a billion iterations.
    const looping = step({
      html: '{% for a in (1..1000) %}{% for b in (1..1000) %}{% for c in (1..1000) %}x{% endfor %}{% endfor %}{% endfor %}',
    });
    await expect(renderEmail(looping, contextOf('order_paid'))).rejects.toThrow(TemplateError);
    await expect(renderEmail(looping, contextOf('order_paid'))).rejects.toThrow(/html: .*limit exceeded/);
  });

  it('stops a template that grows a huge string (memory limit)', async () => {
    const doubling = step({
      text: '{% assign s = "xxxxxxxxxx" %}{% for i in (1..40) %}{% assign s = s | append: s %}{% endfor %}{{ s }}',
    });
    await expect(renderEmail(doubling, contextOf('order_paid'))).rejects.toThrow(/text: .*limit exceeded/);
  });

  it('stops a template whose output is too large', async () => {
    const wide = step({
      text: `{% for i in (1..1000) %}{% for j in (1..20) %}${'y'.repeat(100)}{% endfor %}{% endfor %}`,
    });
    await expect(renderEmail(wide, contextOf('order_paid'))).rejects.toThrow(/text: (renders more than|.*limit)/);
  });
});

describe('validateTemplates', () => {
  it('names the field and the problem of a syntax error', () => {
    expect(() => validateTemplates(step({ html: '<p>{% if contact.first_name %}Hi</p>' }), 'steps[1]')).toThrow(
      /^steps\[1\]\.html: tag \{% if contact\.first_name %\} not closed/,
    );
  });

  it('refuses unknown filters', () => {
    expect(() => validateTemplates(step({ subject: '{{ contact.first_name | shout }}' }), 'steps[0]')).toThrow(
      /steps\[0\]\.subject: undefined filter: shout/,
    );
  });

  it('refuses include, render and layout (no file system)', () => {
    for (const tag of ["{% include '/etc/passwd' %}", "{% render 'x' %}", "{% layout 'x' %}"]) {
      expect(() => validateTemplates(step({ text: tag }))).toThrow(/step\.text: tag "\w+" is not available/);
    }
  });

  it('accepts every preset template', () => {
    for (const kind of Object.keys(PRESETS) as PresetKind[]) {
      for (const email of emailSteps(presetSteps(kind))) expect(() => validateTemplates(email)).not.toThrow();
    }
  });
});
