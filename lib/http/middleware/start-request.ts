import { randomUUID } from 'node:crypto';
import { type ApiMiddleware, openState } from '../request-state.ts';
import { API_PREFIX } from '../routes.ts';

const firstSegment = (path: string): string => path.slice(`${API_PREFIX}/`.length).split('/')[0] ?? '';

/**
 * Opens the request's state: its id (API Gateway's, or a fresh one), its start time, and the envelope's
 * resource as the path names it until a route is chosen (so even a 404 answers with one).
 */
export const startRequest = (options: { clock: () => number }): ApiMiddleware => ({
  before: ({ event }) => {
    const path = event.requestContext?.http?.path ?? event.rawPath ?? '';
    openState(event, {
      requestId: event.requestContext?.requestId || randomUUID(),
      startedAt: options.clock(),
      resource: firstSegment(path),
      id: '',
      ignored: new Set(),
    });
  },
});
