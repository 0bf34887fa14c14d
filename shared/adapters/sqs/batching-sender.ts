/**
 * Coalesces the sends of concurrent callers into `SendMessageBatch` calls. A Lambda instance serves one request at a
 * time, so there every send goes alone (as a plain `SendMessage`); a process serving many requests at once (the local
 * runtime, or a container) sends the messages queued during one turn of the event loop in one call per 10 messages,
 * which cuts the SDK and signing work per message several-fold. Each caller still gets its own outcome: a message that
 * SQS refuses fails only its own caller.
 */
import {
  SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  SendMessageCommand,
  type SQSClient,
} from '#shared/adapters/sqs-client.ts';

/** SQS limits: 10 entries per batch; the batch's total payload is kept within the classic 256 KiB. */
const MAX_ENTRIES = 10;
const MAX_BATCH_BYTES = 256 * 1024;

export type Message = Omit<SendMessageBatchRequestEntry, 'Id'>;

interface Pending {
  readonly message: Message;
  readonly bytes: number;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

export class QueueSendError extends Error {
  constructor(message: string, options: { cause?: unknown; code?: string | undefined } = {}) {
    super(message, { cause: options.cause });
    this.name = options.code ?? 'QueueSendError';
  }
}

const chunks = (pending: Pending[]): Pending[][] => {
  const out: Pending[][] = [];
  let current: Pending[] = [];
  let bytes = 0;
  for (const item of pending) {
    if (current.length === MAX_ENTRIES || (current.length > 0 && bytes + item.bytes > MAX_BATCH_BYTES)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += item.bytes;
  }
  if (current.length > 0) out.push(current);
  return out;
};

/**
 * JSON with the characters SQS emulators may refuse (beyond the Basic Multilingual Plane, e.g. emoji, and the
 * non-characters U+FFFE/U+FFFF) written as `\uXXXX` escapes: the same JSON to any parser. AWS accepts more; fauxqs
 * accepts only #x20–#xFFFD, and a refused send would answer the caller 503.
 */
export const sqsSafeJson = (value: unknown): string =>
  JSON.stringify(value).replace(/[\u{10000}-\u{10FFFF}\uFFFE\uFFFF]/gu, (char) =>
    char
      .split('')
      .map((unit) => `\\u${unit.charCodeAt(0).toString(16)}`)
      .join(''),
  );

export const batchingSender = (client: () => SQSClient, queueUrl: () => string) => {
  let pending: Pending[] = [];

  const sendChunk = async (chunk: Pending[]) => {
    const [only] = chunk;
    if (chunk.length === 1 && only) {
      await client().send(new SendMessageCommand({ QueueUrl: queueUrl(), ...only.message }));
      only.resolve();
      return;
    }
    const { Failed = [] } = await client().send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl(),
        Entries: chunk.map((item, index) => ({ Id: String(index), ...item.message })),
      }),
    );
    const failed = new Map(Failed.map((entry) => [entry.Id, entry]));
    chunk.forEach((item, index) => {
      const failure = failed.get(String(index));
      if (!failure) item.resolve();
      else item.reject(new QueueSendError(failure.Message ?? 'SQS refused the message', { code: failure.Code }));
    });
  };

  const flush = () => {
    const batch = pending;
    pending = [];
    for (const chunk of chunks(batch)) {
      sendChunk(chunk).catch((error: unknown) => {
        for (const item of chunk) item.reject(error);
      });
    }
  };

  return (message: Message): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      if (pending.length === 0) setImmediate(flush);
      pending.push({ message, bytes: Buffer.byteLength(message.MessageBody ?? ''), resolve, reject });
    });
};
