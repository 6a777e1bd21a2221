import { Tracer } from '@aws-lambda-powertools/tracer';
import { METRICS_SERVICE } from '../core/metric-names.ts';

/**
 * The process's tracer (Powertools): a segment per invocation and a subsegment per DynamoDB call, sampled by
 * X-Ray's default rule. Only the Lambda entries import this module (through `runtime.ts`): loading the
 * X-Ray SDK enables an async hook that costs every promise, so npm start and the tests never load it.
 */
export const createTracer = (): Tracer =>
  new Tracer({ serviceName: METRICS_SERVICE, captureHTTPsRequests: false });
