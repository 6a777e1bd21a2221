import type { Unit } from '../rating/span.ts';

/** Escapes a value for HTML text and attributes. */
export const escapeHtml = (value: unknown): string =>
  String(value).replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

const UNIT_WORDS = { D: ['day', 'days'], N: ['night', 'nights'], H: ['hour', 'hours'] } as const;

/** The word for one unit of sale ("night"). */
export const unitWord = (unit: Unit): string => UNIT_WORDS[unit][0];

/** A length in units of sale ("1 night", "3 days"). */
export const describeLength = (unit: Unit, count: number): string =>
  `${count} ${count === 1 ? UNIT_WORDS[unit][0] : UNIT_WORDS[unit][1]}`;
