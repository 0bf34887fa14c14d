import { CfnOutput, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import { ApiMapping, DomainName, type HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { Construct } from 'constructs';

/** Optional custom domains for the hosts: one ACM certificate (in the stack's region) covering every name. */
export interface CustomDomainsConfig {
  readonly certificateArn: string;
  readonly main?: string;
  readonly front?: string;
  readonly sending?: string;
}

type HostName = 'main' | 'front' | 'sending';

/**
 * Maps each configured host name to its HTTP API (a regional API Gateway custom domain), and outputs the target to
 * point the DNS record at (`<Host>DomainTarget`, a CNAME or alias to it). `urls` are the public base URLs: the custom
 * domain where one is set, the API's own endpoint otherwise.
 */
export class CustomDomains extends Construct {
  readonly urls: Readonly<Record<HostName, string>>;

  constructor(
    scope: Construct,
    id: string,
    props: { apis: Readonly<Record<HostName, HttpApi>>; config?: CustomDomainsConfig; removalPolicy: RemovalPolicy },
  ) {
    super(scope, id);
    const urls = {} as Record<HostName, string>;
    const certificate = props.config
      ? Certificate.fromCertificateArn(this, 'Certificate', props.config.certificateArn)
      : undefined;
    for (const host of Object.keys(props.apis) as HostName[]) {
      const api = props.apis[host];
      const name = props.config?.[host];
      if (!name || !certificate) {
        urls[host] = api.apiEndpoint;
        continue;
      }
      const Host = host.charAt(0).toUpperCase() + host.slice(1);
      const domain = new DomainName(this, `${Host}Domain`, { domainName: name, certificate });
      // Unsubscribe links in mail already sent point at it: it outlives its removal from the template.
      domain.applyRemovalPolicy(props.removalPolicy);
      const stage = api.defaultStage;
      if (!stage) throw new Error(`The ${host} API has no default stage to map ${name} to`);
      new ApiMapping(this, `${Host}Mapping`, { api, domainName: domain, stage });
      // At stack level, so the output keeps its plain name.
      new CfnOutput(Stack.of(this), `${Host}DomainTarget`, {
        value: domain.regionalDomainName,
        description: `Point ${name} here (CNAME, or a Route 53 alias with zone ${domain.regionalHostedZoneId})`,
      });
      urls[host] = `https://${name}`;
    }
    this.urls = urls;
  }
}
