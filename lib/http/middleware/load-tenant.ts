import type { StoredConfig } from '../../config/index.ts';
import { type ApiMiddleware, stateWith } from '../request-state.ts';

/** Reads the tenant's configuration (cached for a short time by `loadConfig`) for everything after it. */
export const loadTenant = (loadConfig: (now: number) => Promise<StoredConfig>): ApiMiddleware => ({
  before: async ({ event }) => {
    const state = stateWith(event);
    state.config = await loadConfig(state.startedAt);
  },
});
