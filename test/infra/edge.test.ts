import { Validations } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { widgetSnippet } from '#functions/meta/widget.ts';
import snapshot from '#infra/constructs/cloudfront-origin-facing.json' with { type: 'json' };
import { parseTenant } from '#lib/config/tenant-schema.ts';
import { EDGE_TOKEN_HEADER } from '#lib/http/edge-origin.ts';
import { DOMAIN, EDGE, edgeStack, tenantWith } from '#test/support/edge.ts';
import { demoTenantJson } from '#test/support/tenant.ts';

// The tenant's own domain and the protected edge (docs/edge.md), as options of the tenant file.

type Resource = { Properties: Record<string, any> };
const HTTP_FUNCTIONS = ['Admin', 'Bookings', 'Channels', 'Items', 'Meta', 'Payments', 'Session'];
/** CloudFront's managed policies (their ids are fixed): no custom policy counts against the account's 20. */
const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const ALL_VIEWER = '216adef6-5c7f-47e4-b989-5492eafa07d3';

const only = (template: Template, type: string): [string, Resource] => {
  const found = Object.entries(template.findResources(type));
  expect(found, type).toHaveLength(1);
  return found[0] as [string, Resource];
};
const functionsOf = (template: Template) =>
  Object.entries(template.findResources('AWS::Lambda::Function')) as [string, Resource][];
const groupOf = (id: string) => id.replace(/^Functions/, '').replace(/[0-9A-F]{8}$/, '');
const outputValue = (template: Template, name: string) => {
  const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
  const key = Object.keys(outputs).find((id) => id.includes(name));
  return key ? outputs[key]?.Value : undefined;
};

let plain: Template;
let domainOnly: Template;
let edged: Template;
beforeAll(() => {
  plain = edgeStack(tenantWith({})).template;
  domainOnly = edgeStack(tenantWith({ domain: DOMAIN })).template;
  edged = edgeStack(tenantWith({ domain: DOMAIN, edge: EDGE })).template;
});

describe('without a domain (the default)', () => {
  it('has no custom domain, no CloudFront and no token, and keeps the execute-api endpoint', () => {
    plain.resourceCountIs('AWS::ApiGatewayV2::DomainName', 0);
    plain.resourceCountIs('AWS::CloudFront::Distribution', 0);
    // The SLIP key, the webhook secrets and the payment keys (the demo takes a deposit): no origin token.
    plain.resourceCountIs('AWS::SecretsManager::Secret', 3);
    const secrets = Object.keys(plain.findResources('AWS::SecretsManager::Secret'));
    expect(secrets.filter((id) => id.includes('OriginToken'))).toEqual([]);
    const [, api] = only(plain, 'AWS::ApiGatewayV2::Api');
    expect(api.Properties.DisableExecuteApiEndpoint).toBe(false);
    for (const [id, fn] of functionsOf(plain)) {
      expect(fn.Properties.Environment.Variables.EDGE_PROXIES, id).toBeUndefined();
    }
  });
});

describe('a domain without the edge', () => {
  it("maps API Gateway's regional custom domain, with the region's certificate, to the $default stage", () => {
    const [domainId] = only(domainOnly, 'AWS::ApiGatewayV2::DomainName');
    domainOnly.hasResourceProperties('AWS::ApiGatewayV2::DomainName', {
      DomainName: DOMAIN.name,
      DomainNameConfigurations: [
        {
          CertificateArn: DOMAIN.certificate_arn,
          EndpointType: 'REGIONAL',
          SecurityPolicy: 'TLS_1_2',
          IpAddressType: 'ipv4',
        },
      ],
    });
    const [apiId] = only(domainOnly, 'AWS::ApiGatewayV2::Api');
    domainOnly.hasResourceProperties('AWS::ApiGatewayV2::ApiMapping', {
      ApiId: { Ref: apiId },
      DomainName: { Ref: domainId },
      Stage: '$default',
    });
    domainOnly.resourceCountIs('AWS::CloudFront::Distribution', 0);
  });

  it('keeps the execute-api endpoint, so snippets already pasted keep working', () => {
    expect(only(domainOnly, 'AWS::ApiGatewayV2::Api')[1].Properties.DisableExecuteApiEndpoint).toBe(false);
  });

  it('points the links, the snippet and the outputs at https://<domain>', () => {
    const url = `https://${DOMAIN.name}`;
    const withUrl = functionsOf(domainOnly).filter(
      ([, fn]) => fn.Properties.Environment.Variables.PUBLIC_URL,
    );
    expect(withUrl.map(([id]) => groupOf(id)).sort()).toEqual(HTTP_FUNCTIONS);
    for (const [id, fn] of withUrl) expect(fn.Properties.Environment.Variables.PUBLIC_URL, id).toBe(url);
    expect(outputValue(domainOnly, 'WidgetSnippet')).toBe(widgetSnippet(url));
    expect(outputValue(domainOnly, 'HttpUrl')).toBe(`${url}/api/3.0`);
    expect(outputValue(domainOnly, 'HttpBookingPage')).toBe(`${url}/book`);
  });

  it("outputs API Gateway's regional name and its hosted zone as the DNS record's target", () => {
    const [domainId] = only(domainOnly, 'AWS::ApiGatewayV2::DomainName');
    expect(outputValue(domainOnly, 'DomainTarget')).toEqual({
      'Fn::GetAtt': [domainId, 'RegionalDomainName'],
    });
    expect(outputValue(domainOnly, 'DomainTargetHostedZoneId')).toEqual({
      'Fn::GetAtt': [domainId, 'RegionalHostedZoneId'],
    });
  });
});

describe('the edge', () => {
  it('turns the execute-api endpoint off: the WAF could be passed by through it', () => {
    expect(only(edged, 'AWS::ApiGatewayV2::Api')[1].Properties.DisableExecuteApiEndpoint).toBe(true);
  });

  it("answers the tenant's domain with the us-east-1 certificate, TLS 1.2 and up, behind the shared web ACL", () => {
    edged.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        Aliases: [DOMAIN.name],
        ViewerCertificate: {
          AcmCertificateArn: EDGE.certificate_arn,
          SslSupportMethod: 'sni-only',
          MinimumProtocolVersion: 'TLSv1.2_2021',
        },
        WebACLId: EDGE.web_acl_arn,
      }),
    });
  });

  it("reaches the API only through API Gateway's custom domain, over TLS 1.2 on IPv4, with the origin token", () => {
    const [domainId] = only(edged, 'AWS::ApiGatewayV2::DomainName');
    const [secretId] = Object.keys(edged.findResources('AWS::SecretsManager::Secret')).filter((id) =>
      id.includes('OriginToken'),
    );
    const config = only(edged, 'AWS::CloudFront::Distribution')[1].Properties.DistributionConfig;
    expect(config.Origins).toEqual([
      expect.objectContaining({
        DomainName: { 'Fn::GetAtt': [domainId, 'RegionalDomainName'] },
        CustomOriginConfig: expect.objectContaining({
          OriginProtocolPolicy: 'https-only',
          OriginSSLProtocols: ['TLSv1.2'],
          IpAddressType: 'ipv4',
        }),
        OriginCustomHeaders: [
          {
            HeaderName: EDGE_TOKEN_HEADER,
            HeaderValue: {
              'Fn::Join': ['', ['{{resolve:secretsmanager:', { Ref: secretId }, ':SecretString:::}}']],
            },
          },
        ],
      }),
    ]);
  });

  it('forwards every method, header, cookie and query string (Host and CORS preflights too) and caches nothing', () => {
    const config = only(edged, 'AWS::CloudFront::Distribution')[1].Properties.DistributionConfig;
    expect(config.DefaultCacheBehavior).toMatchObject({
      AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
      CachePolicyId: CACHING_DISABLED,
      OriginRequestPolicyId: ALL_VIEWER,
      ViewerProtocolPolicy: 'https-only',
    });
    // One behaviour for every path: the widget's files and the booking page are not cached at the edge.
    expect(config.CacheBehaviors).toBeUndefined();
    edged.resourceCountIs('AWS::CloudFront::CachePolicy', 0);
    edged.resourceCountIs('AWS::CloudFront::OriginRequestPolicy', 0);
  });

  it('generates the origin token as a secret that goes with the stack, never in plain text', () => {
    edged.hasResource('AWS::SecretsManager::Secret', {
      DeletionPolicy: 'Delete',
      Properties: Match.objectLike({
        Description: Match.stringLikeRegexp('Origin token'),
        GenerateSecretString: Match.objectLike({ PasswordLength: 64, ExcludePunctuation: true }),
      }),
    });
  });

  it("tells every HTTP function CloudFront's ranges and the token the distribution sends, and no other function", () => {
    const config = only(edged, 'AWS::CloudFront::Distribution')[1].Properties.DistributionConfig;
    const header = config.Origins[0].OriginCustomHeaders[0].HeaderValue;
    const told = functionsOf(edged).filter(([, fn]) => fn.Properties.Environment.Variables.EDGE_PROXIES);
    expect(told.map(([id]) => groupOf(id)).sort()).toEqual(HTTP_FUNCTIONS);
    for (const [id, fn] of told) {
      const variables = fn.Properties.Environment.Variables;
      expect(variables.EDGE_PROXIES.split(','), id).toEqual([...snapshot.ipv4, ...snapshot.ipv6]);
      expect(variables.EDGE_ORIGIN_TOKEN, id).toEqual(header);
      expect(variables.PUBLIC_URL, id).toBe(`https://${DOMAIN.name}`);
    }
  });

  it('rotates the token in two deploys: a new secret CloudFront sends, the functions accepting both, then one', () => {
    const secretsOf = (template: typeof edged) =>
      Object.keys(template.findResources('AWS::SecretsManager::Secret')).filter((id) =>
        id.includes('OriginToken'),
      );
    const reference = (id: string) => ({
      'Fn::Join': ['', ['{{resolve:secretsmanager:', { Ref: id }, ':SecretString:::}}']],
    });
    const first = secretsOf(edged)[0] as string;
    const rotating = edgeStack(
      tenantWith({ domain: DOMAIN, edge: { ...EDGE, token_generation: 2, accept_previous_token: true } }),
    ).template;
    const both = secretsOf(rotating);
    expect(both).toHaveLength(2);
    expect(both).toContain(first); // the same construct id: the previous secret is kept, not replaced
    const next = both.find((id) => id !== first) as string;
    const config = only(rotating, 'AWS::CloudFront::Distribution')[1].Properties.DistributionConfig;
    expect(config.Origins[0].OriginCustomHeaders[0].HeaderValue).toEqual(reference(next));
    for (const [id, fn] of functionsOf(rotating).filter(
      ([, f]) => f.Properties.Environment.Variables.EDGE_PROXIES,
    )) {
      // CDK flattens the two references into one join: `<next> <first>`.
      expect(fn.Properties.Environment.Variables.EDGE_ORIGIN_TOKEN, id).toEqual({
        'Fn::Join': [
          '',
          [
            '{{resolve:secretsmanager:',
            { Ref: next },
            ':SecretString:::}} {{resolve:secretsmanager:',
            { Ref: first },
            ':SecretString:::}}',
          ],
        ],
      });
    }
    const rotated = edgeStack(
      tenantWith({ domain: DOMAIN, edge: { ...EDGE, token_generation: 2 } }),
    ).template;
    expect(secretsOf(rotated)).toEqual([next]);
  });

  it('tells the functions to answer requests around the edge only while refuse_direct is off', () => {
    const told = (template: typeof edged) =>
      functionsOf(template)
        .filter(([, fn]) => fn.Properties.Environment.Variables.EDGE_PROXIES)
        .map(([, fn]) => fn.Properties.Environment.Variables.EDGE_REFUSE_DIRECT);
    expect(new Set(told(edged))).toEqual(new Set([undefined]));
    const moving = edgeStack(
      tenantWith({ domain: DOMAIN, edge: { ...EDGE, refuse_direct: false } }),
    ).template;
    expect(new Set(told(moving))).toEqual(new Set(['false']));
  });

  it("keeps each function's environment under Lambda's 4 KB with the ranges and the 64-character token", () => {
    // A reference (an ARN, a name) is counted as 128 characters, the token as the 64 it resolves to.
    for (const [id, fn] of functionsOf(edged)) {
      const variables = Object.entries(fn.Properties.Environment.Variables as Record<string, unknown>);
      const size = variables.reduce(
        (total, [name, value]) =>
          total +
          name.length +
          (name === 'EDGE_ORIGIN_TOKEN' ? 64 : typeof value === 'string' ? value.length : 128),
        0,
      );
      expect(size, id).toBeLessThan(4096);
    }
  });

  it("outputs the distribution's name and CloudFront's hosted zone as the DNS record's target", () => {
    const [distributionId] = only(edged, 'AWS::CloudFront::Distribution');
    expect(outputValue(edged, 'DomainTarget')).toEqual({ 'Fn::GetAtt': [distributionId, 'DomainName'] });
    expect(outputValue(edged, 'DomainTargetHostedZoneId')).toBe('Z2FDTNDATAQYW2');
    expect(outputValue(edged, 'WidgetSnippet')).toBe(widgetSnippet(`https://${DOMAIN.name}`));
  });

  it('is nag-clean, each acknowledgment with its reason', () => {
    const { stack } = edgeStack(tenantWith({ domain: DOMAIN, edge: EDGE }));
    const report = new AwsSolutionsChecks().validateScope(stack);
    expect(report.violations.map((violation) => `${violation.severity} ${violation.ruleName}`)).toEqual([]);
    const acknowledged = stack.node
      .findAll()
      .filter((construct) => construct.node.path.includes('/Domain/'))
      .flatMap((construct) => construct.node.metadata)
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) => Object.entries(entry.data as Record<string, string>));
    expect(acknowledged.map(([id]) => id.replace(/^annotation::/i, '')).sort()).toEqual([
      'AwsSolutions-CFR1',
      'AwsSolutions-CFR3',
      'AwsSolutions-SMG4',
    ]);
    for (const [id, reason] of acknowledged) expect(reason.length, id).toBeGreaterThan(40);
  });
});

describe("the certificates' regions", () => {
  it("takes a domain certificate of the stack's own region", () => {
    const { template } = edgeStack(tenantWith({ domain: DOMAIN }), 'ca-central-1');
    template.resourceCountIs('AWS::ApiGatewayV2::DomainName', 1);
  });

  it("refuses at synth a domain certificate of another region than the stack's", () => {
    expect(() => edgeStack(tenantWith({ domain: DOMAIN }), 'eu-west-1')).toThrow(
      /certificate_arn is in ca-central-1: API Gateway needs a certificate of the stack's region, eu-west-1/,
    );
  });
});

describe('the tenant file', () => {
  const problemsOf = (deployment: Record<string, unknown>) => {
    const result = parseTenant({ ...demoTenantJson(), deployment });
    return result.ok ? [] : result.problems.map((problem) => `${problem.path}: ${problem.message}`);
  };

  it('accepts a domain, with or without the edge', () => {
    expect(problemsOf({ domain: DOMAIN })).toEqual([]);
    expect(problemsOf({ domain: DOMAIN, edge: EDGE })).toEqual([]);
  });

  it('refuses the edge without a domain: CloudFront reaches the API through its custom domain name', () => {
    expect(problemsOf({ edge: EDGE }).join('\n')).toMatch(/edge.*needs `domain`/);
  });

  it('refuses a CloudFront certificate outside us-east-1 and a web ACL that is not CloudFront-scoped', () => {
    expect(
      problemsOf({ domain: DOMAIN, edge: { ...EDGE, certificate_arn: DOMAIN.certificate_arn } }).join('\n'),
    ).toMatch(/certificate_arn.*us-east-1/);
    const regional = EDGE.web_acl_arn.replace('us-east-1', 'eu-west-1').replace('global/', 'regional/');
    expect(problemsOf({ domain: DOMAIN, edge: { ...EDGE, web_acl_arn: regional } }).join('\n')).toMatch(
      /web_acl_arn.*CLOUDFRONT-scope/,
    );
  });

  it('refuses a host name with a scheme, a path, a port, a wildcard or capitals, and an ARN that is none', () => {
    for (const name of [
      'https://book.example.com',
      'book.example.com/api',
      'book.example.com:443',
      '*.example.com',
      'Book.example.com',
      'localhost',
    ]) {
      expect(problemsOf({ domain: { ...DOMAIN, name } }), name).not.toEqual([]);
    }
    expect(
      problemsOf({ domain: { ...DOMAIN, certificate_arn: 'arn:aws:iam::123456789012:role/x' } }),
    ).not.toEqual([]);
  });
});
