import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type { Construct } from 'constructs';
import { HOSTS, type Host } from '#shared/catalog/hosts.ts';
import type { Stage } from '#shared/catalog/stage.ts';
import { CustomDomains, type CustomDomainsConfig } from './constructs/custom-domains.ts';
import { hostApis } from './constructs/http-apis.ts';
import { pascalCase } from './constructs/names.ts';
import { PARAMETER_KEYS, publishParameter } from './constructs/references.ts';

export interface EdgeStackProps extends StackProps {
  readonly stage: Stage;
  /** Custom domain names for the hosts, with the ACM certificate (in the stack's region) that covers them. */
  readonly customDomains?: CustomDomainsConfig;
}

/**
 * The three hosts: one HTTP API each (access logs, stage throttling) and their custom domains. The routes belong to
 * the area stacks, which add them to these APIs by id; the auto-deployed default stage serves them as they come.
 */
export class EdgeStack extends Stack {
  readonly apis: Readonly<Record<Host, HttpApi>>;
  /** Each host's public base URL: its custom domain when configured, else the API's endpoint. */
  readonly publicUrls: Readonly<Record<Host, string>>;

  constructor(scope: Construct, id: string, props: EdgeStackProps) {
    // The hosts' URLs are in mail already sent (unsubscribe links) and in stores' integrations: protected except in dev.
    super(scope, id, { ...props, terminationProtection: props.stage !== 'dev' });
    const { stage } = props;
    const removalPolicy = stage === 'dev' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;
    this.apis = hostApis(this, stage);
    for (const api of Object.values(this.apis)) api.applyRemovalPolicy(removalPolicy);
    this.publicUrls = new CustomDomains(this, 'CustomDomains', {
      apis: this.apis,
      removalPolicy,
      ...(props.customDomains ? { config: props.customDomains } : {}),
    }).urls;

    for (const host of HOSTS) {
      publishParameter(this, stage, PARAMETER_KEYS.apiId(host), this.apis[host].apiId, `${host} HTTP API id`);
      publishParameter(this, stage, PARAMETER_KEYS.publicUrl(host), this.publicUrls[host], `${host} base URL`);
      const front = host === 'front' && stage === 'test' ? ' ({front_test_url})' : '';
      new CfnOutput(this, `${pascalCase(host)}Url`, {
        // No trailing slash (apiEndpoint has none), so `${url}/api/v1/...` composes as the spec writes it.
        value: this.publicUrls[host],
        description: `Base URL of the ${host} host${front}`,
      });
    }
    // The test stage's front host is the spec's {front_test_url}: said by name as well.
    if (stage === 'test') {
      new CfnOutput(this, 'FrontTestUrl', { value: this.publicUrls.front, description: "The spec's {front_test_url}" });
    }
  }
}
