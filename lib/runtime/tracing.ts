import { Tracer } from '@aws-lambda-powertools/tracer';
import { METRICS_SERVICE } from '../kernel/metric-names.ts';
import { dbFromEnv } from './env.ts';

/**
 * The tracer of a scheduled function (sweeper, webhook dispatcher, channel sync): Powertools over the X-Ray
 * SDK, a subsegment per DynamoDB call inside Lambda's own segment. Only those entries import this module:
 * the API functions trace with Lambda's active tracing alone (a segment per invocation, its initialisation
 * included), since the X-Ray SDK is about 115 KB of a bundle, some 30 ms of a cold start and an async hook
 * on every promise (docs/decisions.md, "Issue 33: cold starts").
 */
export const tracer = new Tracer({ serviceName: METRICS_SERVICE, captureHTTPsRequests: false });

/** The table of a scheduled function, each DynamoDB call a subsegment of its trace. */
export const tracedDbFromEnv = () => dbFromEnv((client) => tracer.captureAWSv3Client(client));
