import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { secretsManager } from '#shared/adapters/aws-clients.ts';
import { required } from '#shared/config.ts';
import { masterKeyFromSecret } from '#shared/domain/stores/api-key.ts';
import { onReset } from '#shared/lazy.ts';

let cached: Promise<Buffer> | undefined;
onReset(() => {
  cached = undefined;
});

/** The service master key (AES-256), read once per process from Secrets Manager. */
export const masterKey = (): Promise<Buffer> => {
  cached ??= secretsManager()
    .send(new GetSecretValueCommand({ SecretId: required('masterKeySecretId') }))
    .then(({ SecretString }) => {
      if (!SecretString) throw new Error('The master key secret has no string value');
      return masterKeyFromSecret(SecretString);
    })
    .catch((error: unknown) => {
      cached = undefined;
      throw error;
    });
  return cached;
};
