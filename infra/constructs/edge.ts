import { CfnOutput, Stack, Token } from 'aws-cdk-lib';
import {
  ApiMapping,
  DomainName,
  EndpointType,
  type HttpApi,
  type HttpStage,
  IpAddressType,
  SecurityPolicy,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { Construct } from 'constructs';
import { certificateRegion, type Deployment, type Domain, type Edge } from '#lib/config/index.ts';
import { CLOUDFRONT_HOSTED_ZONE_ID, EdgeDistribution } from './edge-distribution.ts';

/**
 * The public base URL of a tenant whose tenant file names a domain (`https://<name>`, no trailing slash,
 * like an API endpoint), or undefined: the links, the widget snippet and the outputs then use API Gateway's
 * own endpoint.
 */
export const customUrlOf = (deployment: Deployment): string | undefined =>
  deployment.domain ? `https://${deployment.domain.name}` : undefined;

/** Props of the tenant's own domain. */
export interface TenantDomainProps {
  api: HttpApi;
  stage: HttpStage;
  domain: Domain;
  /** CloudFront and WAF in front (the API's execute-api endpoint is then off, see TenantApiProps). */
  edge?: Edge | undefined;
  tenant: string;
}

/**
 * The tenant's host name on its HTTP API: API Gateway's regional custom domain name (the certificate of
 * the stack's region) mapped to the `$default` stage, and with `edge`, CloudFront and WAF in front of it.
 * Outputs the DNS record the operator creates: `<name>` to `DomainTarget`, by CNAME or by a Route 53
 * alias in `DomainTargetHostedZoneId`.
 */
export class TenantDomain extends Construct {
  /** `https://<name>`: where the links, the widget snippet and the outputs point. */
  readonly publicUrl: string;
  readonly apiDomain: DomainName;
  /** The edge, when the tenant file turns it on. */
  readonly edge?: EdgeDistribution;
  /** What the functions that answer HTTP need to know of the edge (none without it). */
  readonly environment: Record<string, string>;

  constructor(scope: Construct, id: string, props: TenantDomainProps) {
    super(scope, id);
    const { domain, edge } = props;
    const region = Stack.of(this).region;
    // Only a stack whose region is known at synth can be checked here; CloudFormation refuses the rest.
    if (!Token.isUnresolved(region) && certificateRegion(domain.certificate_arn) !== region) {
      throw new Error(
        `deployment.domain.certificate_arn is in ${certificateRegion(domain.certificate_arn)}: API Gateway ` +
          `needs a certificate of the stack's region, ${region}`,
      );
    }
    this.publicUrl = `https://${domain.name}`;
    this.apiDomain = new DomainName(this, 'ApiDomain', {
      domainName: domain.name,
      certificate: Certificate.fromCertificateArn(this, 'ApiCertificate', domain.certificate_arn),
      endpointType: EndpointType.REGIONAL,
      securityPolicy: SecurityPolicy.TLS_1_2,
      ipAddressType: IpAddressType.IPV4,
    });
    new ApiMapping(this, 'ApiMapping', { api: props.api, domainName: this.apiDomain, stage: props.stage });

    if (edge) {
      this.edge = new EdgeDistribution(this, 'Edge', {
        domainName: domain.name,
        apiDomain: this.apiDomain,
        edge,
        tenant: props.tenant,
      });
      new CfnOutput(this, 'EdgeDistributionId', {
        value: this.edge.distribution.distributionId,
        description: 'The CloudFront distribution in front of the API',
      });
    }
    this.environment = this.edge?.environment ?? {};
    const target = this.edge
      ? { name: this.edge.distribution.distributionDomainName, zone: CLOUDFRONT_HOSTED_ZONE_ID }
      : { name: this.apiDomain.regionalDomainName, zone: this.apiDomain.regionalHostedZoneId };
    new CfnOutput(this, 'DomainTarget', {
      value: target.name,
      description: `DNS: point ${domain.name} here (CNAME, or a Route 53 alias in DomainTargetHostedZoneId)`,
    });
    new CfnOutput(this, 'DomainTargetHostedZoneId', {
      value: target.zone,
      description: `The hosted zone of DomainTarget, for a Route 53 alias record of ${domain.name}`,
    });
  }
}
