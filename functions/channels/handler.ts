import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { fetchFeed } from '#lib/channels/index.ts';
import { apiDepsFromEnv } from '#lib/http/deps-from-env.ts';
import { metricsFromEnv } from '#lib/runtime/env.ts';
import { meterOf } from '#lib/runtime/metrics.ts';
import { tracedDbFromEnv, tracer } from '#lib/runtime/tracing.ts';
import { createChannelsHandler } from './app.ts';
import { createChannelSync } from './round-job.ts';

const metrics = metricsFromEnv();
const db = tracedDbFromEnv();

/** The scheduled round: every enabled channel's feed (https, public addresses only), traced, metered. */
const sync = middy(createChannelSync({ db, fetchFeed, policy: 'deployed', meter: meterOf(metrics) }))
  .use(captureLambdaHandler(tracer, { captureResponse: false }))
  .use(logMetrics(metrics));

/** The channels group of the API (feeds, channel list and sync), over the same traced table. */
const api = createChannelsHandler(apiDepsFromEnv({ db, metrics }));

/** What API Gateway sends (an HTTP API v2 event), as against EventBridge's scheduled event. */
const isApiEvent = (event: unknown): event is APIGatewayProxyEventV2 =>
  typeof event === 'object' && event !== null && 'requestContext' in event && 'routeKey' in event;

/**
 * Lambda entry of the channels function: EventBridge runs channel sync every 5 minutes, and API Gateway
 * sends it the channels group's routes (`item/{id}/ical`, `booking/ical`, `channel`, `channel/{id}/sync`).
 */
export const handler = (event: unknown, context: Context) =>
  isApiEvent(event) ? api(event, context) : sync(event, context);
