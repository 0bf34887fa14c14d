/**
 * The contact search's lookup items and the contact's email records on the embedded DynamoDB: what a contact's save
 * writes (nothing more when neither its phone nor its name changed), searching and paging, the backfill of contacts
 * saved before the search existed, and the SES outcomes noted on an email.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { batchPut } from '#shared/adapters/dynamodb/batch.ts';
import { dynamoContactSearchIndex } from '#shared/adapters/dynamodb/contact-search.ts';
import { customerItem, dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { dynamoContactEmails, dynamoSentMessages } from '#shared/adapters/dynamodb/email.repositories.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import type { SentMessage } from '#shared/domain/email/model.ts';
import { contact } from '#test/support/memory/contacts.ts';

let runtime: LocalRuntime;
beforeAll(async () => {
  runtime = await startLocalRuntime({ gateways: false, pollers: false, logLevel: 'ERROR' });
});
afterAll(async () => {
  await runtime?.stop();
});

const calls = (operation: string) => runtime.dynamodbCalls()[operation] ?? 0;
const ids = (page: { items: Customer[] }) => page.items.map((c) => c.originId);
const newStore = () => `st_${randomUUID().replaceAll('-', '').slice(0, 20)}`;

describe('the contact search index', () => {
  const customers = dynamoCustomerRepository();
  const index = dynamoContactSearchIndex();

  it('finds a saved contact by phone and by name, and follows a change of name without a rewrite otherwise', async () => {
    const storeId = newStore();
    const ada = contact(storeId, 'c1', { firstName: 'Ada', lastName: 'Lovelace', phone: '+44 20 7946 0000' });
    await customers.save(ada, 0);
    expect(ids(await index.byPhone(storeId, '+442079460000', { limit: 20 }))).toEqual(['c1']);
    expect(ids(await index.byNamePrefix(storeId, 'love', { limit: 20 }))).toEqual(['c1']);
    expect(ids(await index.byNamePrefix(storeId, 'ada lo', { limit: 20 }))).toEqual(['c1']);

    // A save that changes neither phone nor name writes the contact alone.
    const writes = calls('BatchWriteItem');
    const tagged = { ...ada, platformTags: ['vip'], revision: 2 };
    await customers.save(tagged, 1);
    expect(calls('BatchWriteItem')).toBe(writes);

    const { phone: _, ...withoutPhone } = tagged;
    await customers.save({ ...withoutPhone, lastName: 'Byron', revision: 3 }, 2);
    expect(ids(await index.byNamePrefix(storeId, 'love', { limit: 20 }))).toEqual([]);
    expect(ids(await index.byNamePrefix(storeId, 'byr', { limit: 20 }))).toEqual(['c1']);
    expect(ids(await index.byPhone(storeId, '+442079460000', { limit: 20 }))).toEqual([]);
    // Another store's contacts are in other partitions.
    expect(ids(await index.byNamePrefix(newStore(), 'ada', { limit: 20 }))).toEqual([]);
  });

  it('pages a name prefix in name order with a cursor, and refuses the cursor of another search', async () => {
    const storeId = newStore();
    for (let i = 0; i < 25; i++) {
      await customers.save(contact(storeId, `s${String(i).padStart(2, '0')}`, { lastName: `Smith ${i}` }), 0);
    }
    await customers.save(contact(storeId, 'x1', { lastName: 'Smithers' }), 0);
    const first = await index.byNamePrefix(storeId, 'smith', { limit: 20 });
    expect(first.items).toHaveLength(20);
    const second = await index.byNamePrefix(storeId, 'smith', { limit: 20, cursor: first.nextCursor as string });
    expect(new Set([...ids(first), ...ids(second)]).size).toBe(26);
    expect(ids(second)).toContain('x1');
    await expect(
      index.byNamePrefix(storeId, 'smithe', { limit: 20, cursor: first.nextCursor as string }),
    ).rejects.toThrow('cursor is not a cursor of this list');
  });

  it('indexes the contacts of a store saved before the search existed', async () => {
    const storeId = newStore();
    await batchPut([
      customerItem(contact(storeId, 'old1', { firstName: 'Grace', lastName: 'Hopper', phone: '0612345678' })),
      customerItem(contact(storeId, 'old2', { firstName: 'Alan' })),
    ]);
    expect(ids(await index.byNamePrefix(storeId, 'hop', { limit: 20 }))).toEqual([]);
    expect(await index.indexStore(storeId)).toBe(2);
    expect(ids(await index.byNamePrefix(storeId, 'hop', { limit: 20 }))).toEqual(['old1']);
    expect(ids(await index.byPhone(storeId, '0612345678', { limit: 20 }))).toEqual(['old1']);
    expect(ids(await index.byNamePrefix(storeId, 'alan', { limit: 20 }))).toEqual(['old2']);
  });
});

describe("the contact's email records", () => {
  const sent: SentMessage = {
    messageId: `m-${randomUUID()}`,
    storeId: 'store-emails',
    transmissionId: 'run-1',
    kind: 'flow',
    flowId: 'fl_1',
    stepId: 'step-1',
    rcptTo: 'Ada@Example.com',
    msgFrom: 'shop@acme.example',
    sentAt: 1_700_000_000_000,
    subject: 'Your cart is waiting',
  };

  it('keeps each email sent with its subject, and what SES reported of it, newest first', async () => {
    const emails = dynamoContactEmails();
    await dynamoSentMessages().record([sent, { ...sent, messageId: `m-${randomUUID()}`, sentAt: sent.sentAt + 1 }]);
    await emails.note(sent, 'delivered', sent.sentAt + 1_000);
    await emails.note(sent, 'delivered', sent.sentAt + 9_000);
    await emails.note(sent, 'clicked', sent.sentAt + 5_000, 'https://shop.example/a');
    // The same click delivered twice counts once.
    await emails.note(sent, 'clicked', sent.sentAt + 5_000, 'https://shop.example/a');
    await emails.note(sent, 'clicked', sent.sentAt + 6_000, 'https://shop.example/b');
    await emails.note(sent, 'bounced', sent.sentAt + 7_000, 'Transient (MailboxFull): 452');
    const [newer, older] = await emails.latest(sent.storeId, 'ada@example.com', 10);
    expect(newer).toMatchObject({ sentAt: sent.sentAt + 1, subject: 'Your cart is waiting' });
    expect(newer?.deliveredAt).toBeUndefined();
    expect(older).toEqual({
      messageId: sent.messageId,
      storeId: sent.storeId,
      email: 'ada@example.com',
      kind: 'flow',
      transmissionId: 'run-1',
      flowId: 'fl_1',
      stepId: 'step-1',
      subject: 'Your cart is waiting',
      sentAt: sent.sentAt,
      deliveredAt: sent.sentAt + 1_000,
      clickedAt: sent.sentAt + 6_000,
      clicks: 2,
      link: 'https://shop.example/b',
      bouncedAt: sent.sentAt + 7_000,
      bounce: 'Transient (MailboxFull): 452',
    });
  });

  it('notes the first delivery with the right to count it once: first, then counted; unknown without a record or a mark', async () => {
    const emails = dynamoContactEmails();
    const message = { ...sent, messageId: `m-${randomUUID()}`, sentAt: sent.sentAt + 10 };
    await dynamoSentMessages().record([message]);
    expect(await emails.noteDelivered(message, sent.sentAt + 1_000)).toBe('first');
    expect(await emails.noteDelivered(message, sent.sentAt + 2_000)).toBe('counted');
    const record = (await emails.latest(sent.storeId, 'ada@example.com', 10)).find(
      (e) => e.messageId === message.messageId,
    );
    // The first delivery's time; the mark stays out of the record read back.
    expect(record).toMatchObject({ messageId: message.messageId, deliveredAt: sent.sentAt + 1_000 });
    expect(record).not.toHaveProperty('deliveredCounted');
    // No record: nothing is created, the caller counts by its once-key.
    const unknown = { ...sent, messageId: `m-${randomUUID()}` };
    expect(await emails.noteDelivered(unknown, sent.sentAt + 1_000)).toBe('unknown');
    expect((await emails.latest(sent.storeId, 'ada@example.com', 10)).map((e) => e.messageId)).not.toContain(
      unknown.messageId,
    );
    // A delivery noted before the mark existed (`note`): counted by its once-key then, so `unknown` now.
    const older = { ...sent, messageId: `m-${randomUUID()}`, sentAt: sent.sentAt + 20 };
    await dynamoSentMessages().record([older]);
    await emails.note(older, 'delivered', sent.sentAt + 1_000);
    expect(await emails.noteDelivered(older, sent.sentAt + 1_000)).toBe('unknown');
  });

  it('creates nothing for an email it has no record of', async () => {
    const emails = dynamoContactEmails();
    await emails.note({ ...sent, storeId: 'store-none', messageId: 'never-recorded' }, 'delivered', 1);
    expect(await emails.latest('store-none', sent.rcptTo, 10)).toEqual([]);
  });
});
