// The slip context's public entry: what other contexts, the functions and the CLIs use of it.

export type { SlipKey, SlipPayload } from './codec.ts';
export { encodeSlip, SlipError, verifySlip } from './codec.ts';
export { createSecretSlipKeys, EXTENSION_DEFAULT_PORT } from './key-store.ts';
export { generateSlipSecret, parseSlipKeys } from './keys.ts';
