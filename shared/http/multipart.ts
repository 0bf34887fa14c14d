/** `multipart/form-data` bodies (the batch import's `dataFile`), parsed with busboy. */
import busboy from 'busboy';
import { payloadTooLarge, validationError } from '#shared/errors.ts';

export interface MultipartBody {
  readonly fields: Readonly<Record<string, string>>;
  readonly files: Readonly<Record<string, { readonly filename: string; readonly content: Buffer }>>;
}

export const parseMultipart = (contentType: string, raw: Buffer, maxBytes: number): Promise<MultipartBody> =>
  new Promise((resolve, reject) => {
    if (raw.byteLength > maxBytes) {
      reject(payloadTooLarge(maxBytes));
      return;
    }
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { 'content-type': contentType },
        limits: { fileSize: maxBytes, files: 5, fields: 20 },
      });
    } catch {
      reject(validationError('Content-Type must be multipart/form-data with a boundary'));
      return;
    }
    const fields: Record<string, string> = {};
    const files: Record<string, { filename: string; content: Buffer }> = {};
    parser.on('field', (name, value) => {
      fields[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      // A body cut short inside the file errors this stream too: unheard, that error would crash the process.
      stream.on('error', () => reject(validationError('body is not valid multipart/form-data')));
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        files[name] = { filename: info.filename ?? '', content: Buffer.concat(chunks) };
      });
    });
    parser.on('error', () => reject(validationError('body is not valid multipart/form-data')));
    parser.on('close', () => resolve({ fields, files }));
    parser.end(raw);
  });
