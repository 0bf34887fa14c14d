/**
 * Export pages too large for one Lambda response (docs/contacts.md "Paging"): written to the imports bucket under
 * `export-pages/<storeId>/` and handed over as a presigned GET link valid five minutes. The bucket's lifecycle rule
 * deletes them after a day.
 */
import { randomUUID } from 'node:crypto';
import { EXPORT_PAGES_PREFIX } from '#shared/catalog/function-spec.ts';
import { required } from '#shared/config.ts';
import type { LargePages } from '#shared/domain/contacts/export-contacts.ts';
import { putObject, s3 } from './client.ts';

export const EXPORT_PAGE_LINK_SECONDS = 300;

export const s3ExportPages = (): LargePages => ({
  async publish(storeId, json) {
    const Bucket = required('importsBucket');
    const Key = `${EXPORT_PAGES_PREFIX}${storeId}/${randomUUID()}.json`;
    await s3().send(putObject({ Bucket, Key, Body: json, ContentType: 'application/json; charset=utf-8' }));
    return s3().presign('GET', { Bucket, Key }, { expiresIn: EXPORT_PAGE_LINK_SECONDS });
  },
});
