/**
 * Outgoing email as the domain hands it to the mail engine (SESv2 behind the `Mailer` port). Bulk sends (the sending
 * host) and flow emails both go through here, so every message carries the same tags and one-click unsubscribe headers,
 * and SES events map back to the store, the transmission and the recipient the same way.
 */

export interface Address {
  readonly email: string;
  readonly name?: string;
}

/**
 * Tags on every message (SES `EmailTags`; they come back on every SES event). Values must match SES's tag alphabet
 * (`[A-Za-z0-9_-]`, at most 256 characters), so ids used here are of that alphabet.
 */
export const EMAIL_TAGS = {
  store: 'storeflow-store',
  /** The bulk batch id, or the flow run id: the spec's `transmission_id`. */
  transmission: 'storeflow-transmission',
  /** `bulk` or `flow`; or `SIGN_UP_CONFIRMATION_KIND`, the only tag of a public sign-up's confirmation email. */
  kind: 'storeflow-kind',
  flow: 'storeflow-flow',
  /** The campaign a bulk email was sent for (its stats). */
  campaign: 'storeflow-campaign',
} as const;

export type MessageKind = 'bulk' | 'flow';

/**
 * The kind tag of a public sign-up's confirmation email (double opt-in). It carries no store tag and has no
 * sent-message record: SES's reports of it are acknowledged and counted against no store (not its stats, not its
 * sending guard, no suppression), since the address is not the store's list until its owner confirms.
 */
export const SIGN_UP_CONFIRMATION_KIND = 'sign_up_confirmation';

/** One message to one recipient (flows). Content is final: already rendered. */
export interface OutboundEmail {
  readonly from: Address;
  readonly to: Address;
  readonly replyTo?: readonly string[];
  readonly subject: string;
  readonly html?: string;
  readonly text?: string;
  /** Extra headers, e.g. the List-Unsubscribe pair. Names and values are free of CR/LF (checked before). */
  readonly headers: Readonly<Record<string, string>>;
  readonly tags: Readonly<Record<string, string>>;
}

/** One recipient of a bulk chunk. */
export interface BulkEntry {
  readonly to: Address;
  /** Replacement data merged over the chunk's `defaultData` (SES `ReplacementTemplateData`). */
  readonly data: Readonly<Record<string, unknown>>;
  /** Per-entry headers (the recipient's own List-Unsubscribe link). */
  readonly headers: Readonly<Record<string, string>>;
}

/** Up to 50 recipients sharing one content (SES `SendBulkEmail` with inline template content, `{{var}}` syntax). */
export interface OutboundBulk {
  readonly from: Address;
  readonly replyTo?: readonly string[];
  readonly subject: string;
  readonly html?: string;
  readonly text?: string;
  readonly defaultData: Readonly<Record<string, unknown>>;
  readonly headers: Readonly<Record<string, string>>;
  readonly tags: Readonly<Record<string, string>>;
  readonly entries: readonly BulkEntry[];
}

/** SES's verdict on one bulk entry, in entry order. */
export type BulkEntryResult =
  | { readonly status: 'sent'; readonly messageId: string }
  | { readonly status: 'failed'; readonly error: string; readonly permanent: boolean };

/** At most this many destinations per `SendBulkEmail` call (SES's limit). */
export const BULK_CHUNK_SIZE = 50;

/** RFC 8058 one-click unsubscribe: both headers, the URL in angle brackets. */
export const listUnsubscribeHeaders = (url: string): Record<string, string> => ({
  'List-Unsubscribe': `<${url}>`,
  'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
});

/** Why an address is not mailed any more by a store. */
export type SuppressionReason = 'unsubscribed' | 'hard_bounce' | 'complaint';

export interface Suppression {
  readonly storeId: string;
  /** Lower-cased. */
  readonly email: string;
  readonly reason: SuppressionReason;
  /** Epoch milliseconds. */
  readonly at: number;
  /** The message that caused it, when known. */
  readonly transmissionId?: string;
}

/** Every message handed to SES, by SES message id: email events find their store, transmission and recipient here. */
export interface SentMessage {
  readonly messageId: string;
  readonly storeId: string;
  readonly transmissionId: string;
  readonly kind: MessageKind;
  /** The recipient address (`rcpt_to`). */
  readonly rcptTo: string;
  /** The from address (`msg_from`). */
  readonly msgFrom: string;
  readonly flowId?: string;
  /** The flow step that sent it (attribution per step). */
  readonly stepId?: string;
  /** The campaign of a bulk email (attribution per campaign). */
  readonly campaignId?: string;
  /** Epoch milliseconds. */
  readonly sentAt: number;
  /** The subject as sent: kept on the contact's email record only (`ContactEmail`), cut to `SUBJECT_KEPT_CHARS`. */
  readonly subject?: string;
}

/** How much of a subject, a link or a bounce's diagnostic the contact's email record keeps. */
export const SUBJECT_KEPT_CHARS = 200;

/**
 * The contact's emails are kept as long as the rest of its timeline (the flows' activity and explain records): 90
 * days after the send.
 */
export const CONTACT_EMAIL_RETENTION_SECONDS = 90 * 24 * 3600;

/** What SES reported of an email, as the contact's timeline shows it. */
export type EmailOutcome = 'delivered' | 'opened' | 'clicked' | 'bounced' | 'complained' | 'unsubscribed' | 'failed';

/**
 * One email to an address, with what SES reported of it: first delivery, first open, the latest click and how many,
 * a bounce, a complaint, an opt-out, or a failure before sending (SES's reject or rendering failure). Bounded: a
 * fixed set of fields per email, however many events SES sends. Epoch milliseconds.
 */
export interface ContactEmail {
  readonly messageId: string;
  readonly storeId: string;
  /** Lower-cased. */
  readonly email: string;
  readonly kind: MessageKind;
  readonly transmissionId: string;
  readonly flowId?: string;
  readonly stepId?: string;
  readonly subject?: string;
  readonly sentAt: number;
  readonly deliveredAt?: number;
  readonly openedAt?: number;
  readonly clickedAt?: number;
  readonly clicks?: number;
  readonly link?: string;
  readonly bouncedAt?: number;
  readonly bounce?: string;
  readonly complainedAt?: number;
  readonly unsubscribedAt?: number;
  readonly failedAt?: number;
  readonly failure?: string;
}
