import { unitCount, unitNoun } from '../core/guest-words.ts';
import type { Unit } from '../rating/span.ts';

/** Escapes a value for HTML text and attributes. */
export const escapeHtml = (value: unknown): string =>
  String(value).replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** The word for one unit of sale ("night"). */
export const unitWord = (unit: Unit): string => unitNoun(unit);

/** A length in units of sale ("1 night", "3 days"). */
export const describeLength = (unit: Unit, count: number): string => unitCount(unit, count);
