/**
 * Webhook subscriptions (spec "Webhook management"): one per topic per store, `format` always `json`, `createdAt` in
 * seconds. Creating again for a topic overwrites the earlier setting (a new subscription with a new id).
 */
import { validationError } from '#shared/errors.ts';
import type { WebhookTopic } from './topics.ts';

/** Spec "Limits": webhook url at most 500 characters. */
export const MAX_WEBHOOK_URL_LENGTH = 500;

export interface Webhook {
  readonly storeId: string;
  readonly id: string;
  readonly topic: WebhookTopic;
  readonly url: string;
  readonly format: 'json';
  /** Seconds. */
  readonly createdAt: number;
  /** Epoch milliseconds of the last change. */
  readonly updatedAt: number;
}

/** The record as the API shows it (spec "Webhook record"). */
export const webhookRecord = (webhook: Webhook) => ({
  id: webhook.id,
  topic: webhook.topic,
  url: webhook.url,
  format: webhook.format,
  createdAt: webhook.createdAt,
});

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The URL rules that need no network: present, at most 500 characters, absolute, `https` (plain `http` only to
 * loopback, and only where private addresses are allowed, i.e. the local runtime), no credentials in it. Returns the
 * parsed URL and the text as sent (what is stored and shown). Whether the
 * host resolves to public addresses is checked by the address guard, at subscription and again at every delivery.
 */
export const parseWebhookUrl = (raw: unknown, options: { allowPrivate: boolean }): { url: URL; text: string } => {
  if (typeof raw !== 'string' || raw.trim() === '') throw validationError('url is required');
  const text = raw.trim();
  if ([...text].length > MAX_WEBHOOK_URL_LENGTH) {
    throw validationError(`url must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw validationError('url must be an absolute URL');
  }
  const plainLocal = url.protocol === 'http:' && options.allowPrivate && LOCAL_HOSTS.has(url.hostname);
  if (url.protocol !== 'https:' && !plainLocal) throw validationError('url must use https');
  if (url.username || url.password) throw validationError('url must not contain credentials');
  // Stored and shown as sent (trimmed): `URL.toString()` would percent-encode it, possibly past the 500 characters.
  return { url, text };
};
