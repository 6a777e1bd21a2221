import type { EnvelopeContext } from './envelope.ts';
import type { RequestState } from './request-state.ts';
import { envelopeTenant } from './tenant-context.ts';

/** What the envelope says about the request: the tenant, what was asked for, timings and ignored names. */
export const envelopeContext = (state: RequestState, method: string, now: number): EnvelopeContext => ({
  tenant: envelopeTenant(state.config),
  resource: state.resource,
  id: state.id,
  method,
  startedAt: state.startedAt,
  now,
  ignored: [...state.ignored],
});
