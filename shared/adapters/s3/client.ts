/** The service's S3 client (one per process), observed like every AWS client. */
import { S3Client } from '@aws-sdk/client-s3';
import { observed } from '#shared/adapters/client-observers.ts';
import { config } from '#shared/config.ts';
import { processWide } from '#shared/lazy.ts';

export const s3 = /* @__PURE__ */ processWide(() =>
  observed('s3', new S3Client({ forcePathStyle: config().s3ForcePathStyle })),
);
