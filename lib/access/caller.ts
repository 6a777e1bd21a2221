import type { AccountGrant } from '../config/index.ts';

/**
 * Who is calling: a customer (the public widget surface) or a staff account. `partnerId` is the partner
 * account a booking made by this caller is attributed to; `partnerOnly` marks a partner's own
 * credential, which sees and changes only the bookings attributed to it and has only the staff
 * privileges its account is granted (`grants`).
 */
export type Caller =
  | { kind: 'customer'; credentialKey?: string; partnerId?: number }
  | {
      kind: 'staff';
      accountId: number;
      credentialKey: string;
      credentialAccountId: number;
      partnerId?: number;
      partnerOnly?: boolean;
      grants?: readonly AccountGrant[];
    };

/** Whether a caller is a partner's own credential, confined to what is attributed to it. */
export const isPartnerOnly = (caller: Caller): boolean =>
  caller.kind === 'staff' && caller.partnerOnly === true;

/**
 * Whether a caller has a staff privilege: staff have every one, a partner's own credential those its
 * account is granted in the tenant file, customers none.
 */
export const hasGrant = (caller: Caller, grant: AccountGrant): boolean =>
  caller.kind === 'staff' && (!caller.partnerOnly || (caller.grants ?? []).includes(grant));
