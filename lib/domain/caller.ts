/**
 * Who is calling: a customer (the public widget surface) or a staff account. `partnerId` is the partner
 * account a booking made by this caller is attributed to; `partnerOnly` marks a partner's own
 * credential, which sees and changes only the bookings attributed to it.
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
    };

/** Whether a caller is a partner's own credential, confined to what is attributed to it. */
export const isPartnerOnly = (caller: Caller): boolean =>
  caller.kind === 'staff' && caller.partnerOnly === true;
