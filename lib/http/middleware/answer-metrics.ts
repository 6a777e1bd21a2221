import { type Meter, meterAnswer } from '../../runtime/metrics.ts';
import { type ApiMiddleware, stateOf } from '../request-state.ts';
import { toApiError } from '../respond.ts';

/**
 * Reports every answer's metrics, an error's too (refusals by their error id), wherever in the pipeline
 * it was decided: a 404 from the router as much as a refusal from a route.
 */
export const answerMetrics = (options: { meter: Meter; clock: () => number }): ApiMiddleware => {
  const report = (event: Parameters<typeof stateOf>[0], errorId?: string) => {
    const state = stateOf(event);
    if (!state) return;
    meterAnswer(options.meter, {
      route: state.route,
      ...(errorId ? { errorId } : { rated: state.rated ?? false }),
      ms: options.clock() - state.startedAt,
    });
  };
  return {
    after: ({ event }) => report(event),
    onError: ({ event, error }) => report(event, toApiError(error)?.id),
  };
};
