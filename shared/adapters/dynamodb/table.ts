import { required } from '../../config.ts';

/** The service table's name (set by CDK from the catalog, or by the local runtime). */
export const tableName = (): string => required('tableName');

/** True when a conditional write failed its condition (the SDK names the error, whatever the transport). */
export const isConditionFailure = (error: unknown): boolean =>
  error instanceof Error && error.name === 'ConditionalCheckFailedException';
