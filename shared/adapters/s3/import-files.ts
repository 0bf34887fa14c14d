/** Import files in the imports bucket: written by the API (or a presigned PUT), streamed line by line by the worker. */
import {
  GetObjectCommand,
  type GetObjectCommandOutput,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { config, required } from '#shared/config.ts';
import type { ImportFiles } from '#shared/domain/imports/ports.ts';
import { lazy } from '#shared/lazy.ts';

const s3 = lazy(() => new S3Client({ forcePathStyle: config().s3ForcePathStyle }));

const NEWLINE = 0x0a;

export const s3ImportFiles = (): ImportFiles => ({
  async put(key, content) {
    await s3().send(
      new PutObjectCommand({
        Bucket: required('importsBucket'),
        Key: key,
        Body: content,
        ContentType: 'application/x-ndjson',
      }),
    );
  },

  async *lines(key, offset) {
    let Body: GetObjectCommandOutput['Body'];
    try {
      ({ Body } = await s3().send(
        new GetObjectCommand({
          Bucket: required('importsBucket'),
          Key: key,
          ...(offset > 0 ? { Range: `bytes=${offset}-` } : {}),
        }),
      ));
    } catch (error) {
      // A run that paused right after the last line resumes at the file's end, a range S3 answers with 416.
      if (offset > 0 && error instanceof Error && error.name === 'InvalidRange') return;
      throw error;
    }
    if (!Body) return;
    // Split on bytes, not characters, so each line's end offset is exact for a ranged resume.
    let pending = Buffer.alloc(0);
    let position = offset;
    for await (const chunk of Body as AsyncIterable<Uint8Array>) {
      pending = pending.length === 0 ? Buffer.from(chunk) : Buffer.concat([pending, chunk]);
      let start = 0;
      for (let at = pending.indexOf(NEWLINE); at !== -1; at = pending.indexOf(NEWLINE, start)) {
        const line = pending.subarray(start, at);
        position += at - start + 1;
        start = at + 1;
        yield { text: line.toString('utf8').replace(/\r$/, ''), end: position };
      }
      pending = pending.subarray(start);
    }
    if (pending.length > 0) yield { text: pending.toString('utf8').replace(/\r$/, ''), end: position + pending.length };
  },

  uploadUrl: (key, expiresInSeconds) =>
    getSignedUrl(s3(), new PutObjectCommand({ Bucket: required('importsBucket'), Key: key }), {
      expiresIn: expiresInSeconds,
    }),

  async exists(key) {
    try {
      await s3().send(new HeadObjectCommand({ Bucket: required('importsBucket'), Key: key }));
      return true;
    } catch (error) {
      if (error instanceof Error && (error.name === 'NotFound' || error.name === 'NoSuchKey')) return false;
      throw error;
    }
  },
});
