/**
 * Templates whose cost cannot be bounded: one `where_exp` over a large range ran 152 s in a shared worker,
 * since LiquidJS checks its time limit between nodes only. Such templates are refused when saved, and a flow saved
 * before the rule fails its own run when it renders, leaving the others alone.
 */
import { describe, expect, it } from 'vitest';
import { handleTrigger } from '#shared/domain/flows/enter-run.ts';
import { type EmailStep, renderEmail, TemplateError, validateTemplates } from '#shared/domain/flows/render.ts';
import { runIdOf } from '#shared/domain/flows/run.ts';
import { MAX_RANGE_ITEMS, unboundedConstruct } from '#shared/domain/flows/template-cost.ts';
import { emailStep, fakes, flowOf, STORE, triggerOf } from '#test/support/memory/flow-engine.ts';

const step = (html: string): EmailStep => ({
  type: 'email',
  id: 'e1',
  from: { email: 'hello@shop.example', name: 'Shop' },
  subject: 'Hi',
  html,
});

describe('templates whose cost cannot be bounded', () => {
  it.each([
    ['{% assign xs = (1..10000000) | where_exp: "x", "x > 0" %}', 'the filter where_exp'],
    ['{{ contact.tags | find_exp: "t", "t == 1" }}', 'the filter find_exp'],
    ['{% assign g = lines | group_by_exp: "l", "l.sku" %}', 'the filter group_by_exp'],
    ['{% for i in (1..contact.points) %}*{% endfor %}', 'the range (1..contact.points) must have whole-number bounds'],
    [`{% for i in (1..${MAX_RANGE_ITEMS + 1}) %}*{% endfor %}`, `has ${MAX_RANGE_ITEMS + 1} items`],
  ])('refuses %s when saved, naming the construct', (html, named) => {
    expect(() => validateTemplates(step(html), 'steps[0]')).toThrow(named);
    expect(() => validateTemplates(step(html), 'steps[0]')).toThrow(/^steps\[0\]\.html: /);
  });

  it.each([
    '{% for i in (1..5) %}★{% endfor %}',
    `{% for i in (0..${MAX_RANGE_ITEMS - 1}) %}{% endfor %}`,
    '{{ cart.lineItems | where: "productId", "p-1" | map: "title" | join: ", " }}',
    'Ranges in text are text: (1..99999), and in strings too: {{ "(1..99999)" }}',
  ])('accepts %s', (html) => {
    expect(unboundedConstruct(html)).toBeUndefined();
  });

  it('stops a stored template of that kind when it renders, with the reason, before any work', async () => {
    const render = renderEmail(
      step('{% assign xs = (1..2400000) | where_exp: "x", "x > 0 and x < 5 or x == 7" %}{{ xs | size }}'),
      {} as never,
    );
    await expect(render).rejects.toBeInstanceOf(TemplateError);
    await expect(render).rejects.toThrow('html: the filter where_exp is not available');
  });

  it('fails only the run whose template cannot render: the other flow of the trigger mails', async () => {
    const f = fakes();
    // Saved before the rule (stored directly, as an older definition would be).
    f.flows.set(
      'fl_bad',
      flowOf('fl_bad', 'order_paid', { steps: [emailStep('e1', { html: '{{ (1..9) | where_exp: "x", "x" }}' })] }),
    );
    f.flows.set('fl_good', flowOf('fl_good', 'order_paid'));
    const trigger = triggerOf('order_paid');
    await handleTrigger(f.deps, trigger);
    expect(f.runs.get(runIdOf(STORE, 'fl_bad', trigger.id))?.events.at(-1)).toMatchObject({
      type: 'failed',
      reason: 'render_failed',
    });
    expect(f.runs.get(runIdOf(STORE, 'fl_good', trigger.id))?.status).toBe('completed');
    expect(f.sent).toHaveLength(1);
  });
});
