import { CfnOutput, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  CorsHttpMethod,
  HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  HttpStage,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { ROUTES } from '#functions/routes.ts';
import { CORS_ALLOW_HEADERS, CORS_EXPOSE_HEADERS } from '#lib/http/cors.ts';
import { fullPath, type Group } from '#lib/http/routes.ts';
import { logGroupPrefix } from './functions.ts';

/** Props of the tenant's HTTP API. */
export interface TenantApiProps {
  functions: Readonly<Record<Group, NodejsFunction>>;
  corsOrigins: string[];
  throttle: { rateLimit: number; burstLimit: number };
  /** How long the access log keeps its lines, and whether it outlives the stack (as the functions' logs). */
  logRetention: RetentionDays;
  removalPolicy: RemovalPolicy;
  /**
   * Whether API Gateway's own `execute-api` address answers (default true). Off behind the edge, whose WAF
   * a request to that address would pass by (docs/edge.md).
   */
  executeApiEndpoint?: boolean;
  /** Where the outputs point, `https://<domain>` without a trailing slash (default the stage's own URL). */
  publicUrl?: string | undefined;
}

/**
 * One JSON line per request: who, which route, the answer and its timing, and why an integration failed.
 * No query string and no header: `access_token` and credentials never reach the log.
 */
const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  ip: '$context.identity.sourceIp',
  requestTime: '$context.requestTime',
  routeKey: '$context.routeKey',
  path: '$context.path',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  integrationError: '$context.integrationErrorMessage',
  userAgent: '$context.identity.userAgent',
} as const;

/**
 * The HTTP API: a route for every row of the route table, the widget's files (meta), and a
 * `$default` route to the meta function so unknown paths and methods still get the 404/405 envelope.
 */
export class TenantApi extends Construct {
  readonly api: HttpApi;
  /** The `$default` stage: its metrics (ApiId and Stage) are what the alarms read. */
  readonly stage: HttpStage;

  constructor(scope: Construct, id: string, props: TenantApiProps) {
    super(scope, id);
    const integrations = Object.fromEntries(
      Object.entries(props.functions).map(([group, fn]) => [
        group,
        new HttpLambdaIntegration(`${group}Integration`, fn, { scopePermissionToRoute: false }),
      ]),
    ) as Record<Group, HttpLambdaIntegration>;

    this.api = new HttpApi(this, 'Api', {
      createDefaultStage: false,
      defaultIntegration: integrations.meta,
      disableExecuteApiEndpoint: props.executeApiEndpoint === false,
      ...(props.corsOrigins.length
        ? {
            corsPreflight: {
              allowOrigins: props.corsOrigins,
              allowCredentials: true,
              allowMethods: [CorsHttpMethod.GET, CorsHttpMethod.POST, CorsHttpMethod.OPTIONS],
              allowHeaders: CORS_ALLOW_HEADERS,
              exposeHeaders: CORS_EXPOSE_HEADERS,
            },
          }
        : {}),
    });
    const accessLog = new LogGroup(this, 'AccessLogs', {
      logGroupName: `${logGroupPrefix(Stack.of(this).stackName)}api-access`,
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });
    const stage = new HttpStage(this, 'Stage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle,
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLog),
        format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
    });
    this.stage = stage;

    // A route per row of the table, the booking page and the widget's files too. API Gateway routes `/item/`
    // as `/item` (passing the raw path on), and the routers inside each function accept the trailing slash,
    // so one route per row serves both.
    for (const route of ROUTES) {
      const path = fullPath(route);
      new HttpRoute(this, `${route.method}${path.replace(/[^A-Za-z0-9]/g, '_')}`, {
        httpApi: this.api,
        routeKey: HttpRouteKey.with(path, HttpMethod[route.method]),
        integration: integrations[route.group],
      });
    }
    // Access control is the service's own (Basic, Bearer, partners, per-client limits in lib/access and
    // lib/http), inside the functions; most routes are public by the interface's design.
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Booking API 3.0 routes are public or checked by the functions (API key and secret or bearer ' +
        'token against the tenant table); an API Gateway authorizer would duplicate that check.',
    });
    // The `$default` stage's URL ends in a slash; a configured one does not.
    const base = props.publicUrl ? `${props.publicUrl}/` : stage.url;
    new CfnOutput(this, 'Url', { value: `${base}api/3.0` });
    new CfnOutput(this, 'BookingPage', { value: `${base}book` });
  }
}
