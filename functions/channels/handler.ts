import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy from '@middy/core';
import { fetchFeed } from '#lib/channels/fetch-feed.ts';
import { meterOf } from '#lib/http/observability.ts';
import { metricsFromEnv } from '#lib/http/runtime.ts';
import { tracedDbFromEnv, tracer } from '#lib/http/tracing.ts';
import { createChannelSync } from './app.ts';

const metrics = metricsFromEnv();

/**
 * Lambda entry of channel sync, run every 5 minutes by EventBridge: fetches every enabled channel's feed
 * (https, public addresses only) and applies it; traced, its metrics flushed per run.
 */
export const handler = middy(
  createChannelSync({ db: tracedDbFromEnv(), fetchFeed, policy: 'deployed', meter: meterOf(metrics) }),
)
  .use(captureLambdaHandler(tracer, { captureResponse: false }))
  .use(logMetrics(metrics));
