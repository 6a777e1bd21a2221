// The access context's public entry: what other contexts, the functions and the CLIs use of it.

export type { AccessStore } from './access.ts';
export { assertNotPartner, resolveCaller } from './access.ts';
export type { Caller } from './caller.ts';
export { hasGrant, isPartnerOnly } from './caller.ts';
export {
  CredentialAdminError,
  createCredential,
  ensureCredential,
  issueToken,
  listCredentialSummaries,
  revoke,
  rotate,
} from './credential-admin.ts';
export { getCredential, getToken, recordCredentialUse } from './credential-repository.ts';
export { AccessError, AuthError } from './errors.ts';
export { hashToken, sameSecret } from './secrets.ts';
