import { Logger } from '@aws-lambda-powertools/logger';

/**
 * The structured JSON logger. Pass the request id in each call's attributes (never `appendKeys`):
 * the local gateway serves concurrent requests from one process. Level: `POWERTOOLS_LOG_LEVEL`.
 */
export const logger = new Logger({ serviceName: 'booking-api' });
