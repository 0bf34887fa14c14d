import { RemovalPolicy, type Stack } from 'aws-cdk-lib';
import { type CfnStage, HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { HOST_THROTTLE, HOSTS, type Host } from '#shared/catalog/hosts.ts';
import type { Stage } from '#shared/catalog/stage.ts';
import { pascalCase } from './names.ts';

/** The default stage of the API (L1: `HttpApi` offers neither access logs nor throttling for the stage it creates). */
const defaultStageOf = (api: HttpApi): CfnStage => {
  const cfnStage = api.defaultStage?.node.defaultChild as CfnStage | undefined;
  if (!cfnStage) throw new Error(`API ${api.node.id} has no default stage`);
  return cfnStage;
};

/**
 * Access logs of the API's default stage, JSON, in a log group of its own (same retention as the functions'). The
 * route key, never the path: paths carry unsubscribe tokens. Set on the L1 stage because `HttpApi` offers no access
 * log option for the stage it creates itself.
 */
const logAccess = (api: HttpApi, stage: Stage): void => {
  const logGroup = new LogGroup(api, 'AccessLogs', {
    retention: RetentionDays.ONE_MONTH,
    removalPolicy: stage === 'dev' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
  });
  defaultStageOf(api).accessLogSettings = {
    destinationArn: logGroup.logGroupArn,
    format: JSON.stringify({
      requestId: '$context.requestId',
      time: '$context.requestTimeEpoch',
      ip: '$context.identity.sourceIp',
      route: '$context.routeKey',
      status: '$context.status',
      bytes: '$context.responseLength',
      latencyMs: '$context.responseLatency',
      integrationMs: '$context.integrationLatency',
      integrationError: '$context.integrationErrorMessage',
    }),
  };
};

/** One HTTP API per host, each with its JSON access log and the host's throttling (catalog `HOST_THROTTLE`). */
export const hostApis = (scope: Stack, stage: Stage): Record<Host, HttpApi> => {
  const apis = {} as Record<Host, HttpApi>;
  for (const host of HOSTS) {
    apis[host] = new HttpApi(scope, `${pascalCase(host)}Api`, {
      apiName: `storeflow-${stage}-${host}`,
      description: `Storeflow ${stage}: ${host} host`,
      // Every request reaches a Lambda that authenticates it itself (architecture §3), so no authorizer here.
      createDefaultStage: true,
    });
    logAccess(apis[host], stage);
    defaultStageOf(apis[host]).defaultRouteSettings = {
      throttlingRateLimit: HOST_THROTTLE[host].ratePerSecond,
      throttlingBurstLimit: HOST_THROTTLE[host].burst,
    };
  }
  return apis;
};
