import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { IDomainName } from 'aws-cdk-lib/aws-apigatewayv2';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HttpVersion,
  OriginIpAddressType,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  OriginSslPolicy,
  PriceClass,
  SecurityPolicyProtocol,
  SSLMethod,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import type { Edge } from '#lib/config/index.ts';
import { EDGE_ENV, EDGE_TOKEN_HEADER } from '#lib/http/edge-origin.ts';
import originFacing from './cloudfront-origin-facing.json' with { type: 'json' };

/** CloudFront's origin-facing address ranges (ip-ranges.json, service CLOUDFRONT_ORIGIN_FACING), as vendored. */
export const CLOUDFRONT_ORIGIN_FACING: readonly string[] = [...originFacing.ipv4, ...originFacing.ipv6];

/** The hosted zone of every CloudFront distribution, for a Route 53 alias record to one. */
export const CLOUDFRONT_HOSTED_ZONE_ID = 'Z2FDTNDATAQYW2';

/** Props of the tenant's edge. */
export interface EdgeDistributionProps {
  /** The tenant's host name, which CloudFront answers and forwards as the Host header. */
  domainName: string;
  /** API Gateway's custom domain name for it: CloudFront's one origin. */
  apiDomain: IDomainName;
  edge: Edge;
  tenant: string;
}

/**
 * CloudFront in front of the tenant's HTTP API, with the account's shared WAF web ACL: one behaviour, no
 * caching, every viewer header, cookie and query string forwarded (the API answers each request for
 * itself; the `Host` header is what API Gateway finds the custom domain name by), and the stack's origin
 * token added to every request it sends to the origin.
 */
export class EdgeDistribution extends Construct {
  readonly distribution: Distribution;
  /** The environment of the functions that answer HTTP: CloudFront's ranges and the origin token. */
  readonly environment: Record<string, string>;

  constructor(scope: Construct, id: string, props: EdgeDistributionProps) {
    super(scope, id);
    // The token proves a request came through this distribution (lib/http/edge-origin.ts). It is copied into
    // CloudFront's origin configuration and the functions' environment by CloudFormation dynamic references;
    // it guards nothing kept, so it goes with the stack.
    // A rotation is a new generation (a new secret, so both copies change); during one the previous secret
    // stays, and the functions accept its token too while CloudFront's edge locations change over.
    const originToken = (generation: number) => {
      const secret = new Secret(this, generation === 1 ? 'OriginToken' : `OriginToken${generation}`, {
        description: `Origin token CloudFront adds to the requests of tenant ${props.tenant}'s edge`,
        generateSecretString: { passwordLength: 64, excludePunctuation: true },
        removalPolicy: RemovalPolicy.DESTROY,
      });
      Validations.of(secret).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason:
          'The origin token is resolved into the distribution and the functions at deploy time: a rotation ' +
          'function could change the secret but neither copy (docs/edge.md: a rotation is a new generation).',
      });
      return secret.secretValue.unsafeUnwrap();
    };
    const generation = props.edge.token_generation;
    const tokenValue = originToken(generation);
    const accepted =
      props.edge.accept_previous_token && generation > 1
        ? `${tokenValue} ${originToken(generation - 1)}`
        : tokenValue;

    const origin = new HttpOrigin(props.apiDomain.regionalDomainName, {
      protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
      originSslProtocols: [OriginSslPolicy.TLS_V1_2],
      // API Gateway's regional name answers on IPv4: the origin-facing ranges the functions trust are IPv4.
      ipAddressType: OriginIpAddressType.IPV4,
      // API Gateway gives an integration 30 s at most; the functions time out well before.
      readTimeout: Duration.seconds(30),
      customHeaders: { [EDGE_TOKEN_HEADER]: tokenValue },
    });
    this.distribution = new Distribution(this, 'Distribution', {
      comment: `Booking API of tenant ${props.tenant}`,
      defaultBehavior: {
        origin,
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
        allowedMethods: AllowedMethods.ALLOW_ALL,
        // Managed policies: a custom one per tenant would run into 20 policies per account.
        cachePolicy: CachePolicy.CACHING_DISABLED,
        originRequestPolicy: OriginRequestPolicy.ALL_VIEWER,
        // With caching disabled CloudFront compresses nothing; the meta function gzips the widget and the page.
        compress: false,
      },
      domainNames: [props.domainName],
      certificate: Certificate.fromCertificateArn(this, 'Certificate', props.edge.certificate_arn),
      sslSupportMethod: SSLMethod.SNI,
      minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
      webAclId: props.edge.web_acl_arn,
      httpVersion: HttpVersion.HTTP2_AND_3,
      enableIpv6: true,
      priceClass: PriceClass.PRICE_CLASS_ALL,
    });
    Validations.of(this.distribution).acknowledge(
      {
        id: 'AwsSolutions-CFR1',
        reason:
          "Guests book from anywhere; a tenant's countries are not the edge's to decide. The shared web " +
          'ACL is where an operator blocks countries for every tenant.',
      },
      {
        id: 'AwsSolutions-CFR3',
        reason:
          'Every request that passes the edge reaches API Gateway, whose access log records it, and the ' +
          "functions' access log line carries the viewer's address (lib/http/middleware/access-log.ts); the " +
          'WAF metrics and sampled requests show what the edge refused. A third log would only add cost.',
      },
    );
    this.environment = {
      [EDGE_ENV.ranges]: CLOUDFRONT_ORIGIN_FACING.join(','),
      [EDGE_ENV.token]: accepted,
      ...(props.edge.refuse_direct ? {} : { [EDGE_ENV.refuseDirect]: 'false' }),
    };
  }
}
