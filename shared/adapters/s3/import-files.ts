/** Import files in the imports bucket: written by the API (or a presigned PUT), streamed line by line by the worker. */
import { required } from '#shared/config.ts';
import { readLines } from '#shared/domain/imports/line-reader.ts';
import type { ImportFiles } from '#shared/domain/imports/ports.ts';
import { type GetObjectOutput, getObject, headObject, putObject, s3 } from './client.ts';

export const s3ImportFiles = (): ImportFiles => ({
  async put(key, content) {
    await s3().send(
      putObject({ Bucket: required('importsBucket'), Key: key, Body: content, ContentType: 'application/x-ndjson' }),
    );
  },

  async *lines(key, offset) {
    let Body: GetObjectOutput['Body'];
    try {
      ({ Body } = await s3().send(
        getObject({
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
    yield* readLines(Body, offset);
  },

  uploadUrl(key, expiresInSeconds, bytes) {
    return s3().presign(
      'PUT',
      { Bucket: required('importsBucket'), Key: key },
      // Signed: S3 refuses a PUT of any other length, so the URL cannot take a file larger than the job declared.
      { expiresIn: expiresInSeconds, headers: { 'content-length': String(bytes) } },
    );
  },

  async size(key) {
    try {
      const head = await s3().send(headObject({ Bucket: required('importsBucket'), Key: key }));
      return head.ContentLength ?? 0;
    } catch (error) {
      if (error instanceof Error && (error.name === 'NotFound' || error.name === 'NoSuchKey')) return undefined;
      throw error;
    }
  },
});
