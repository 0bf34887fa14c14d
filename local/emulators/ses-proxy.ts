/**
 * The local runtime's SESv2 endpoint (`AWS_ENDPOINT_URL_SESV2`): a thin front of aws-ses-v2-local, which stores and shows
 * sent mail but has no identity API.
 *
 * - `/v2/email/identities*` (Create, Get, List, Delete email identity) is answered here. Locally a registered domain
 *   counts as verified at once (Easy DKIM `SUCCESS`, verified for sending), with plausible, stable DKIM tokens; with a
 *   state directory the identities survive restarts.
 * - Every other request is forwarded to aws-ses-v2-local as is, with one adaptation: aws-ses-v2-local checks bulk
 *   destinations as bare addresses, so `"Name" <addr>` destinations are forwarded as `addr` (SES accepts both).
 * - Calls are counted by operation (`sesCalls()`), and every mail SES accepted is announced to `onSent` listeners
 *   (the local stand-in for SES's event publishing hangs off this).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/** One mail SES accepted, as announced to `onSent` listeners. */
export interface LocalSentMail {
  readonly messageId: string;
  /** `FromEmailAddress` as sent (it may carry a display name). */
  readonly from: string;
  /** The destination addresses as sent. */
  readonly to: string[];
  /** `EmailTags` (SendEmail), or `DefaultEmailTags` merged with the entry's `ReplacementTags` (SendBulkEmail). */
  readonly tags: Record<string, string>;
  readonly configurationSet?: string;
}

export type LocalIdentityStatus = 'verified' | 'pending' | 'failed';

export type SentListener = (mails: LocalSentMail[]) => void | Promise<void>;

export interface SesProxyOptions {
  /** aws-ses-v2-local's base URL. */
  readonly upstream: string;
  readonly port?: number;
  /** Where identities persist (`ses-identities.json`); in memory without it. */
  readonly dataDir?: string;
}

export interface SesProxy {
  readonly url: string;
  /** SES operations served so far, by operation name (`SendBulkEmail`, `CreateEmailIdentity`, …). */
  calls(): Record<string, number>;
  /** Calls `listener` after every successful SendEmail / SendBulkEmail with the accepted mails; returns an unsubscribe. */
  onSent(listener: SentListener): () => void;
  /**
   * Local-only test aid: the verification state SES reports for `identity` (registered or not yet), e.g. `pending` to
   * see how an unverified domain is handled; `verified` (the default) undoes it.
   */
  setIdentityStatus(identity: string, status: LocalIdentityStatus): void;
  stop(): Promise<void>;
}

interface Identity {
  readonly name: string;
  readonly createdAt: number;
  /** `Tags` of CreateEmailIdentity, answered by GetEmailIdentity (the stage tag). */
  readonly tags?: readonly { readonly Key: string; readonly Value: string }[];
}

interface Reply {
  status: number;
  body: unknown;
  errorType?: string;
}

const errorReply = (status: number, errorType: string, message: string): Reply => ({
  status,
  errorType,
  body: { message },
});

/** Three stable 32-character tokens per identity, of the alphabet SES uses. */
const dkimTokens = (identity: string): string[] =>
  [1, 2, 3].map((n) =>
    createHash('sha256')
      .update(`${identity}#${n}`)
      .digest('base64')
      .replace(/[^a-z0-9]/gi, '')
      .toLowerCase()
      .slice(0, 32),
  );

const identityType = (name: string) => (name.includes('@') ? 'EMAIL_ADDRESS' : 'DOMAIN');

const SES_STATUS: Record<LocalIdentityStatus, string> = { verified: 'SUCCESS', pending: 'PENDING', failed: 'FAILED' };

const describeIdentity = (identity: Identity, status: LocalIdentityStatus = 'verified') => ({
  IdentityType: identityType(identity.name),
  VerifiedForSendingStatus: status === 'verified',
  VerificationStatus: SES_STATUS[status],
  FeedbackForwardingStatus: true,
  DkimAttributes: {
    SigningEnabled: true,
    Status: SES_STATUS[status],
    Tokens: identityType(identity.name) === 'DOMAIN' ? dkimTokens(identity.name) : [],
    SigningAttributesOrigin: 'AWS_SES',
    CurrentSigningKeyLength: 'RSA_2048_BIT',
    NextSigningKeyLength: 'RSA_2048_BIT',
    LastKeyGenerationTimestamp: Math.floor(identity.createdAt / 1000),
  },
  MailFromAttributes: { BehaviorOnMxFailure: 'USE_DEFAULT_VALUE', MailFromDomainStatus: 'SUCCESS' },
  Policies: {},
  Tags: identity.tags ?? [],
});

const operationOf = (method: string, path: string): string => {
  if (path === '/v2/email/outbound-emails' && method === 'POST') return 'SendEmail';
  if (path === '/v2/email/outbound-bulk-emails' && method === 'POST') return 'SendBulkEmail';
  if (path === '/v2/email/identities') return method === 'POST' ? 'CreateEmailIdentity' : 'ListEmailIdentities';
  if (path.startsWith('/v2/email/identities/')) return method === 'DELETE' ? 'DeleteEmailIdentity' : 'GetEmailIdentity';
  if (path === '/v2/email/account') return 'GetAccount';
  if (path.startsWith('/v2/email/templates')) return 'EmailTemplate';
  return 'Other';
};

/** `"Name" <addr>` or `Name <addr>` → `addr`; a bare address stays as it is. */
const bareAddress = (address: string): string => /<([^<>]+)>\s*$/.exec(address)?.[1] ?? address;

type Json = Record<string, unknown>;
const asArray = (value: unknown): Json[] => (Array.isArray(value) ? (value as Json[]) : []);
const tagsOf = (value: unknown): Record<string, string> =>
  Object.fromEntries(asArray(value).map((tag) => [String(tag.Name), String(tag.Value)]));

export async function startSesProxy(options: SesProxyOptions): Promise<SesProxy> {
  const file = options.dataDir ? join(options.dataDir, 'ses-identities.json') : undefined;
  const identities = new Map<string, Identity>();
  if (file && existsSync(file)) {
    for (const identity of JSON.parse(readFileSync(file, 'utf8')) as Identity[]) {
      identities.set(identity.name, identity);
    }
  }
  const persist = () => {
    if (file) writeFileSync(file, JSON.stringify([...identities.values()], null, 2));
  };
  const counts = new Map<string, number>();
  const statuses = new Map<string, LocalIdentityStatus>();
  const listeners = new Set<SentListener>();

  const identityApi = (method: string, path: string, body: Json): Reply => {
    if (path === '/v2/email/identities') {
      if (method === 'GET') {
        return {
          status: 200,
          body: {
            EmailIdentities: [...identities.values()].map((identity) => ({
              IdentityName: identity.name,
              IdentityType: identityType(identity.name),
              SendingEnabled: true,
              VerificationStatus: SES_STATUS[statuses.get(identity.name) ?? 'verified'],
            })),
          },
        };
      }
      if (method !== 'POST') return errorReply(405, 'BadRequestException', `${method} is not supported here`);
      const name = typeof body.EmailIdentity === 'string' ? body.EmailIdentity.trim().toLowerCase() : '';
      if (!name) return errorReply(400, 'BadRequestException', 'EmailIdentity is required');
      if (identities.has(name)) {
        return errorReply(400, 'AlreadyExistsException', `Email identity ${name} already exist.`);
      }
      const tags = asArray(body.Tags).map((tag) => ({ Key: String(tag.Key), Value: String(tag.Value) }));
      const identity: Identity = { name, createdAt: Date.now(), ...(tags.length > 0 ? { tags } : {}) };
      identities.set(name, identity);
      persist();
      const { IdentityType, VerifiedForSendingStatus, DkimAttributes } = describeIdentity(identity, statuses.get(name));
      return { status: 200, body: { IdentityType, VerifiedForSendingStatus, DkimAttributes } };
    }
    const name = decodeURIComponent(path.slice('/v2/email/identities/'.length)).toLowerCase();
    const identity = identities.get(name);
    if (!identity) return errorReply(404, 'NotFoundException', `Email identity ${name} does not exist.`);
    if (method === 'DELETE') {
      identities.delete(name);
      persist();
      return { status: 200, body: {} };
    }
    if (method === 'GET') return { status: 200, body: describeIdentity(identity, statuses.get(name)) };
    return errorReply(405, 'BadRequestException', `${method} is not supported here`);
  };

  /** The mails an answered send accepted, paired with the request that asked for them. */
  const acceptedMails = (operation: string, sent: Json, answer: Json): LocalSentMail[] => {
    const from = String(sent.FromEmailAddress ?? '');
    const configurationSet =
      typeof sent.ConfigurationSetName === 'string' ? { configurationSet: sent.ConfigurationSetName } : {};
    if (operation === 'SendEmail') {
      if (typeof answer.MessageId !== 'string') return [];
      const destination = (sent.Destination ?? {}) as Json;
      const to = ['ToAddresses', 'CcAddresses', 'BccAddresses'].flatMap((field) =>
        Array.isArray(destination[field]) ? (destination[field] as unknown[]).map(String) : [],
      );
      return [{ messageId: answer.MessageId, from, to, tags: tagsOf(sent.EmailTags), ...configurationSet }];
    }
    const entries = asArray(sent.BulkEmailEntries);
    const defaults = tagsOf(sent.DefaultEmailTags);
    return asArray(answer.BulkEmailEntryResults).flatMap((result, index) => {
      const entry = entries[index];
      if (result.Status !== 'SUCCESS' || typeof result.MessageId !== 'string' || !entry) return [];
      const destination = (entry.Destination ?? {}) as Json;
      const to = Array.isArray(destination.ToAddresses) ? (destination.ToAddresses as unknown[]).map(String) : [];
      const tags = { ...defaults, ...tagsOf(entry.ReplacementTags) };
      return [{ messageId: result.MessageId, from, to, tags, ...configurationSet }];
    });
  };

  const announce = (mails: LocalSentMail[]) => {
    if (mails.length === 0) return;
    for (const listener of listeners) {
      Promise.resolve()
        .then(() => listener(mails))
        .catch((error: unknown) => console.error('[ses-proxy] onSent listener failed:', error));
    }
  };

  /** aws-ses-v2-local validates bulk destinations as bare addresses. */
  const forUpstream = (operation: string, body: Json): Json => {
    if (operation !== 'SendBulkEmail') return body;
    return {
      ...body,
      BulkEmailEntries: asArray(body.BulkEmailEntries).map((entry) => {
        const destination = (entry.Destination ?? {}) as Json;
        const bare = (field: string) =>
          Array.isArray(destination[field])
            ? { [field]: (destination[field] as unknown[]).map(String).map(bareAddress) }
            : {};
        return { ...entry, Destination: { ...bare('ToAddresses'), ...bare('CcAddresses'), ...bare('BccAddresses') } };
      }),
    };
  };

  const forward = (req: IncomingMessage, body: Buffer): Promise<{ status: number; headers: Json; body: Buffer }> =>
    new Promise((resolve, reject) => {
      const target = new URL(req.url ?? '/', options.upstream);
      const headers = { ...req.headers, host: target.host, 'content-length': String(body.byteLength) };
      const upstream = request(target, { method: req.method ?? 'GET', headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 502, headers: response.headers, body: Buffer.concat(chunks) }),
        );
        response.on('error', reject);
      });
      upstream.on('error', reject);
      upstream.end(body);
    });

  const readJson = (raw: Buffer): Json => {
    try {
      const value: unknown = JSON.parse(raw.toString('utf8') || '{}');
      return value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
    } catch {
      return {};
    }
  };

  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const method = req.method ?? 'GET';
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const operation = operationOf(method, path);
    counts.set(operation, (counts.get(operation) ?? 0) + 1);

    if (path === '/v2/email/identities' || path.startsWith('/v2/email/identities/')) {
      const reply = identityApi(method, path, readJson(raw));
      res.writeHead(reply.status, {
        'content-type': 'application/json',
        ...(reply.errorType ? { 'x-amzn-errortype': reply.errorType } : {}),
        'x-amzn-requestid': createHash('sha1').update(`${Date.now()}${Math.random()}`).digest('hex'),
      });
      res.end(JSON.stringify(reply.body));
      return;
    }

    const sending = operation === 'SendEmail' || operation === 'SendBulkEmail';
    const sent = sending ? readJson(raw) : {};
    const body = operation === 'SendBulkEmail' ? Buffer.from(JSON.stringify(forUpstream(operation, sent))) : raw;
    const answer = await forward(req, body);
    res.writeHead(answer.status, answer.headers as Record<string, string>);
    res.end(answer.body);
    if (sending && answer.status === 200) announce(acceptedMails(operation, sent, readJson(answer.body)));
  };

  const server = createServer((req, res) => {
    serve(req, res).catch((error: unknown) => {
      console.error('[ses-proxy] request failed:', error);
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json', 'x-amzn-errortype': 'InternalServiceErrorException' });
      }
      res.end(JSON.stringify({ message: 'Internal error in the local SES front' }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    calls: () => Object.fromEntries(counts),
    setIdentityStatus(identity, status) {
      statuses.set(identity.toLowerCase(), status);
    },
    onSent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
