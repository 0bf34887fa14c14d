/**
 * Observability singletons (Powertools). Configured by the standard `POWERTOOLS_*` variables: service name and log level
 * come from the function's environment; locally `POWERTOOLS_DEV=true` pretty-prints. Never log API keys or headers.
 */
import { Logger } from '@aws-lambda-powertools/logger';

export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'storeflow' });
