import { Logger } from '@aws-lambda-powertools/logger';
import { mapErrorStacks } from './stack-map.ts';

/**
 * The structured JSON logger. Pass the request id in each call's attributes (never `appendKeys`):
 * the local gateway serves concurrent requests from one process. Level: `POWERTOOLS_LOG_LEVEL`. A logged
 * error's stack is read in the sources (stack-map.ts), as the deployed bundles load no source map.
 */
export const logger = new Logger({ serviceName: 'booking-api', jsonReplacerFn: mapErrorStacks });
