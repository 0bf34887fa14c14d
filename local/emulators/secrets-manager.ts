/**
 * Minimal Secrets Manager emulator (awsJson1_1: `POST /` with `X-Amz-Target: secretsmanager.<Operation>`): read-only
 * `GetSecretValue` and `DescribeSecret` over a fixed map of secrets given at start. Each secret has a single version
 * labelled AWSCURRENT; rotation, writes and binary secrets are out of scope for the local runtime.
 */
import { createHash } from 'node:crypto';

const ACCOUNT = '000000000000';

/** An HTTP answer for the server to write. */
export interface SecretsReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

interface Secret {
  arn: string;
  name: string;
  value: string;
  versionId: string;
}

/** Serves the read side of Secrets Manager over a fixed set of secrets. */
export class SecretsManagerEmulator {
  /** Each secret is reachable by its name and by its ARN, as with the real service. */
  readonly #byId = new Map<string, Secret>();
  readonly #createdAt = Date.now() / 1000;

  /**
   * @param secrets secret strings keyed by name or by ARN (`arn:aws:secretsmanager:{region}:{account}:secret:{name}`);
   * a name key gets a synthesized ARN in `region`.
   */
  constructor(secrets: Record<string, string>, region = 'us-east-1') {
    for (const [id, value] of Object.entries(secrets)) {
      const fromArn = id.startsWith('arn:') ? id.slice(id.indexOf(':secret:') + ':secret:'.length) : undefined;
      const name = fromArn ?? id;
      const arn = fromArn === undefined ? `arn:aws:secretsmanager:${region}:${ACCOUNT}:secret:${name}` : id;
      // Deterministic, so the version id stays the same across restarts of the local runtime.
      const versionId = createHash('sha256').update(`${arn}\n${value}`).digest('hex').slice(0, 32);
      const secret: Secret = { arn, name, value, versionId };
      this.#byId.set(arn, secret);
      this.#byId.set(name, secret);
    }
  }

  /** Serves one request: `target` is the `X-Amz-Target` header, `body` the raw request body. */
  handle(target: string, body: string): SecretsReply {
    let input: { SecretId?: unknown; VersionId?: unknown; VersionStage?: unknown };
    try {
      input = body === '' ? {} : JSON.parse(body);
    } catch {
      return error('InvalidRequestException', 'Request body is not valid JSON');
    }
    const operation = target.slice('secretsmanager.'.length);
    if (operation !== 'GetSecretValue' && operation !== 'DescribeSecret') {
      return error(
        'UnknownOperationException',
        `The local Secrets Manager emulator supports only GetSecretValue and DescribeSecret, not ${target}`,
      );
    }
    if (typeof input.SecretId !== 'string' || input.SecretId === '') {
      return error('InvalidParameterException', 'SecretId is required');
    }
    const secret = this.#byId.get(input.SecretId);
    if (!secret) return error('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
    if (operation === 'DescribeSecret') {
      return ok({
        ARN: secret.arn,
        Name: secret.name,
        CreatedDate: this.#createdAt,
        LastChangedDate: this.#createdAt,
        VersionIdsToStages: { [secret.versionId]: ['AWSCURRENT'] },
      });
    }
    const wrongVersion = input.VersionId !== undefined && input.VersionId !== secret.versionId;
    const wrongStage = input.VersionStage !== undefined && input.VersionStage !== 'AWSCURRENT';
    if (wrongVersion || wrongStage) {
      return error('ResourceNotFoundException', "Secrets Manager can't find the specified secret value.");
    }
    return ok({
      ARN: secret.arn,
      Name: secret.name,
      VersionId: secret.versionId,
      SecretString: secret.value,
      VersionStages: ['AWSCURRENT'],
      CreatedDate: this.#createdAt,
    });
  }
}

function ok(body: object): SecretsReply {
  return { status: 200, headers: { 'content-type': 'application/x-amz-json-1.1' }, body: JSON.stringify(body) };
}

/** awsJson1_1 errors: HTTP 400 and the error name in `__type`, which the SDK maps to its exception class. */
function error(type: string, message: string): SecretsReply {
  return {
    status: 400,
    headers: { 'content-type': 'application/x-amz-json-1.1' },
    body: JSON.stringify({ __type: type, Message: message }),
  };
}
