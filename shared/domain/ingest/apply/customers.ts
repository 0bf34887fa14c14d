/**
 * Customer events. General `customers/create` and `customers` start the "customer created" flow only when they create
 * the customer (rule 5); `customers/update` starts none. Headless `customers/create` is a form subscription: it creates
 * or updates the contact, starts the subscription-welcome flow and emits `customer/newsletter` (headless rule 5); through
 * the publishable key, less (`applyHeadlessCustomer`).
 */
import { upsertContact } from '#shared/domain/contacts/upsert-contact.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import type { CustomerCreateData, CustomerUpdateData } from '#shared/domain/events/payloads/customers.ts';
import type { HeadlessCustomerData } from '#shared/domain/events/payloads/headless.ts';
import { flowsIgnored } from '#shared/domain/flows/trigger.ts';
import type { IngestMessage } from '#shared/domain/ingest/model.ts';
import { newsletterBody } from '#shared/domain/webhooks/payloads.ts';
import { type ApplyDeps, type ApplyOutcome, fireFromEvent } from './context.ts';

const upsertCustomer = (
  deps: ApplyDeps,
  message: IngestMessage,
  data: CustomerCreateData | CustomerUpdateData,
  beforeSave?: Parameters<typeof upsertContact>[3],
  held?: Parameters<typeof upsertContact>[4],
) =>
  upsertContact(
    deps,
    {
      storeId: message.storeId,
      storeType: message.storeType ?? 'direct',
      eventId: message.sourceId,
      publicKey: message.key === 'publishable',
    },
    data,
    beforeSave,
    held,
  );

/** A customer trigger's subject, contact and context. */
const aboutCustomer = (customer: Customer) => ({
  subject: { type: 'customer', id: customer.originId },
  contact: { email: customer.email, phone: customer.phone, customerId: customer.originId },
  context: customerContext(customer),
});

const customerContext = (customer: Customer) => ({
  customer: {
    id: customer.id,
    originId: customer.originId,
    email: customer.email,
    phone: customer.phone,
    firstName: customer.firstName,
    lastName: customer.lastName,
    countryCode: customer.countryCode,
  },
});

export const applyGeneralCustomer = async (deps: ApplyDeps, message: IngestMessage): Promise<ApplyOutcome> => {
  const data = message.data as CustomerCreateData | CustomerUpdateData;
  const { customer, created } = await upsertCustomer(deps, message, data);
  const startsFlow = message.endpoint !== 'customers/update' && created && !flowsIgnored(message.data);
  const contact = { customerId: customer.originId };
  if (!startsFlow) return { applied: 'customer', triggers: [], contact };
  const kind = await fireFromEvent(deps, message, {
    kind: 'customer_created',
    ...aboutCustomer(customer),
  });
  return { applied: 'customer', triggers: [kind], contact };
};

/**
 * The consent state a sign-up stores. Through the publishable key, which anyone can read in the storefront's pages,
 * `subscribed` is stored as `not_subscribed`: a public key alone never subscribes an address to marketing (anyone could
 * sign up anyone's address); confirmation by the address's owner is what will subscribe it. Other states are kept.
 */
export const signUpConsentState = (state: string, publicKey: boolean): string =>
  publicKey && state === 'subscribed' ? 'not_subscribed' : state;

/** Whether a sign-up gives email consent: no state given is a subscription (a form), else `subscribed` given. */
const asksEmailConsent = (given: { state: string } | undefined): boolean =>
  given === undefined || given.state === 'subscribed';

/**
 * A form subscription: the channel given is subscribed unless the payload says otherwise (collecting an address in a
 * subscription form is the subscription). Through the publishable key, which anyone can read in the storefront's pages,
 * it signs up a new customer only: naming an existing customer's id changes nothing of it (email, phone, names, dates,
 * consent, tags) and starts nothing, so a public key cannot redirect a customer's mail or their consent. For a new
 * customer, the consent it gives is stored not subscribed (`signUpConsentState`), and it starts no welcome: the address
 * was typed in by anyone, not confirmed by its owner, so no flow mails it on this sign-up, whatever the flow's consent
 * rule (a welcome set to `not_unsubscribed` would otherwise mail any address a request names). Email consent given
 * this way is pending: one confirmation email asks the owner (double opt-in, `contacts/sign-up-confirmation.ts`). The
 * `customer/newsletter` webhook still reports the sign-up.
 */
export const applyHeadlessCustomer = async (deps: ApplyDeps, message: IngestMessage): Promise<ApplyOutcome> => {
  const data = message.data as HeadlessCustomerData;
  if (message.key === 'publishable' && (await deps.customers.get(message.storeId, String(data.id)))) {
    return { applied: 'none', triggers: [] };
  }
  const nowSeconds = Math.floor(deps.clock.now() / 1000);
  const publicKey = message.key === 'publishable';
  const consent = (given: { state: string } | undefined, channelGiven: boolean) => {
    const state = given ? given.state : channelGiven ? 'subscribed' : undefined;
    return state === undefined ? undefined : { state: signUpConsentState(state, publicKey), updatedAt: nowSeconds };
  };
  const { email_marketing_consent, sms_marketing_consent, ...rest } = data;
  const confirming = publicKey && data.email !== undefined && asksEmailConsent(email_marketing_consent);
  // The sign-up is reported before the contact is saved: a publishable-key sign-up redelivered after a stop finds its
  // customer existing and changes nothing, so a report made after the save would be lost with the process. So is the
  // double opt-in's confirmation email asked for (its owner confirms by the link in it; only then is the consent
  // subscribed and the welcome fired, `confirmSignUp`): sent before the save, a stop between the two sends no second
  // email (the address's bound) and the saved pending contact is confirmed by the first email's link.
  const { customer } = await upsertCustomer(
    deps,
    message,
    {
      ...rest,
      email_marketing_consent: consent(email_marketing_consent, data.email !== undefined),
      sms_marketing_consent: consent(sms_marketing_consent, data.phone !== undefined),
    } as CustomerUpdateData,
    async (write) => {
      await deps.webhooks.emit(
        message.storeId,
        'customer/newsletter',
        newsletterBody(write.customer, nowSeconds),
        `newsletter#${message.sourceId}`,
      );
      if (confirming && write.customer.email) {
        await deps.confirmations.request(message.storeId, write.customer.email);
      }
    },
    confirming ? { emailConfirmation: { requestedAt: deps.clock.now() } } : {},
  );
  if (publicKey) return { applied: 'customer', triggers: [], contact: { customerId: customer.originId } };

  const kind = await fireFromEvent(deps, message, {
    kind: 'subscription_welcome',
    ...aboutCustomer(customer),
  });
  return { applied: 'customer', triggers: [kind], contact: { customerId: customer.originId } };
};
