/**
 * A flow email's preview (the console's flow page and step editor) renders a real contact's values with the same rules
 * as the email itself: markup in a first name is text in the HTML part, and CR/LF in it leaves the subject one line.
 */
import { describe, expect, it } from 'vitest';
import { renderPreviews } from '#shared/domain/console/flow-detail.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import { customerOf, emailStep, STORE, triggerOf } from '#test/support/memory/flow-engine.ts';

const previewFor = async (firstName: string) => {
  const contact: Customer = customerOf('c-1', { firstName });
  const deps = { customers: { get: async () => contact }, contacts: { find: async () => [contact] } };
  const step = emailStep('e1', {
    subject: 'Hi {{ contact.first_name }}',
    preheader: 'For {{ contact.first_name }}',
    html: '<p>Hi {{ contact.first_name }}</p>',
    text: 'Hi {{ contact.first_name }}',
  });
  const source = {
    trigger: triggerOf('abandoned_cart', { contact: { email: 'ada@example.com', customerId: 'c-1' } }),
    email: 'ada@example.com',
    at: 1_000_000,
  };
  const [preview] = await renderPreviews(deps, { storeId: STORE, name: 'Shop' }, [step], source);
  const rendered = preview?.rendered;
  if (!rendered || 'error' in rendered) throw new Error(`no preview: ${JSON.stringify(rendered)}`);
  return rendered;
};

describe('flow email previews', () => {
  it('show a first name set to a link as text in the HTML part, as it is in the text part', async () => {
    const link = '<a href="https://evil.example/refund">Claim your refund</a>';
    const rendered = await previewFor(link);
    const escaped = '&lt;a href=&#34;https://evil.example/refund&#34;&gt;Claim your refund&lt;/a&gt;';
    expect(rendered.html).not.toContain('<a href="https://evil.example/refund">');
    expect(rendered.html).toContain(`<p>Hi ${escaped}</p>`);
    expect(rendered.html).toContain(`For ${escaped}`);
    expect(rendered.text).toBe(`Hi ${link}`);
  });

  it('keep a subject one line when the first name carries CR/LF', async () => {
    const rendered = await previewFor('Eve\r\nBcc: spy@evil.example');
    expect(rendered.subject).toBe('Hi Eve Bcc: spy@evil.example');
  });
});
