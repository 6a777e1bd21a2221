import { logger } from '../../runtime/logger.ts';
import { type ApiMiddleware, stateOf } from '../request-state.ts';

/** Logs one line per answered request (errors are logged where their envelope is built). */
export const accessLog = (): ApiMiddleware => ({
  after: ({ event, response }) => {
    const state = stateOf(event);
    logger.info('request', {
      request_id: state?.requestId,
      route: state?.route,
      status: response?.statusCode,
      client_ip: state?.requesterAddress ?? event.requestContext?.http?.sourceIp,
    });
  },
});
