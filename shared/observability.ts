/**
 * Observability singletons (Powertools). Configured by the standard `POWERTOOLS_*` variables: service name and log level
 * come from the function's environment; locally `POWERTOOLS_DEV=true` pretty-prints logs and turns metrics off. Never
 * log API keys or headers.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { lazy } from './lazy.ts';
import { type BusinessMetric, metricsNamespace } from './observability/business-metrics.ts';

export { BUSINESS_METRICS, type BusinessMetric } from './observability/business-metrics.ts';

const serviceName = process.env.POWERTOOLS_SERVICE_NAME ?? 'storeflow';

export const logger = new Logger({ serviceName });

type Level = Parameters<Logger['setLogLevel']>[0];

/**
 * Sets the level for every later invocation. Lambda sets `POWERTOOLS_LOG_LEVEL` before this module loads; the local
 * runtime sets it after (its caller has imported the handlers' modules), and `setLogLevel` alone would hold only until
 * the next invocation resets the logger to the level it was made with, so that one changes too.
 */
export const applyLogLevel = (level: Level): void => {
  (logger as unknown as { setInitialLogLevel(level: Level): void }).setInitialLogLevel(level);
  logger.setLogLevel(level);
};

/** Created on first use: the namespace follows the stage (`STAGE`), which the local runtime sets after imports. */
const metricsEmitter = /* @__PURE__ */ lazy(
  () =>
    new Metrics({
      namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? metricsNamespace(process.env.STAGE ?? 'dev'),
      serviceName,
    }),
);

/**
 * Business metrics as CloudWatch embedded metric format (EMF) log lines: each call is written at once with its own
 * dimensions (Powertools `singleMetric`), so no handler needs a flush step and two calls with different dimension
 * values never share one. `metrics.count(BUSINESS_METRICS.flowEmailsSkipped, 1, { reason: 'suppressed' })`.
 */
export const metrics = {
  count(name: BusinessMetric, value = 1, dimensions: Readonly<Record<string, string>> = {}): void {
    if (value <= 0) return;
    try {
      const single = metricsEmitter().singleMetric();
      for (const [dimension, dimensionValue] of Object.entries(dimensions))
        single.addDimension(dimension, dimensionValue);
      single.addMetric(name, MetricUnit.Count, value);
    } catch (error) {
      // A metric is never worth failing the request or the message it describes.
      logger.warn('Metric not emitted', { metric: name, error });
    }
  },
};
