/** `.local/stack.json`: what a running `npm start` tells scripts, tests and people about itself. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ENV } from '#shared/config.ts';
import { MASTER_KEY_SECRET_ID, REGION, TABLE_NAME } from './resources.ts';

export const LOCAL_DIR = resolve(import.meta.dirname, '../.local');
export const STACK_FILE = join(LOCAL_DIR, 'stack.json');

export interface StackFile {
  readonly mainUrl: string;
  readonly frontUrl: string;
  readonly sendingUrl: string;
  /** The local SES emulator: its web page lists sent mail, `/store` returns it as JSON. */
  readonly mailUrl: string;
  readonly storeId: string;
  readonly apiKey: string;
  /** Emulator endpoints, for the admin command and debugging. */
  readonly services: { readonly dynamodb: string; readonly sqs: string; readonly emulators: string };
  readonly pid: number;
}

export const readStackFile = (): StackFile | undefined => {
  if (!existsSync(STACK_FILE)) return undefined;
  try {
    return JSON.parse(readFileSync(STACK_FILE, 'utf8')) as StackFile;
  } catch {
    return undefined;
  }
};

export const writeStackFile = (stack: StackFile) =>
  writeFileSync(STACK_FILE, `${JSON.stringify(stack, null, 2)}\n`, { mode: 0o600 });

/** True when the process that wrote the stack file is still running. */
export const isRunning = (stack: StackFile): boolean => {
  try {
    process.kill(stack.pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Points this process's adapters at a running `npm start` stack (its table and secret on the local emulators), as a
 * script run beside it does: the admin command, the store-week simulator.
 */
export const useRunningStack = (stack: StackFile): void => {
  Object.assign(process.env, {
    AWS_REGION: REGION,
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_ENDPOINT_URL_DYNAMODB: stack.services.dynamodb,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: stack.services.emulators,
    [ENV.tableName]: TABLE_NAME,
    [ENV.masterKeySecretId]: MASTER_KEY_SECRET_ID,
  });
};
