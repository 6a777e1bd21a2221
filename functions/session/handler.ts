import { runtimeFromEnv } from '#lib/http/runtime.ts';
import { createSessionHandler } from './app.ts';

/** Lambda entry of the session group. */
export const handler = createSessionHandler(runtimeFromEnv());
