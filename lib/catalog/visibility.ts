import { type Caller, hasGrant } from '../access/index.ts';

/** Item visibility: `*` everyone, `S` staff, `P` private (only when asked for by id). */
export type Visibility = '*' | 'S' | 'P';

/**
 * Whether a caller sees an item of this visibility in lists (private items never are listed); staff-only
 * items are listed to staff and to partners granted `staff_items`.
 */
export function isListedFor(caller: Caller, visibility: Visibility): boolean {
  return visibility === '*' || (visibility === 'S' && hasGrant(caller, 'staff_items'));
}
