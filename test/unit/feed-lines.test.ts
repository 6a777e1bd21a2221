import fc from 'fast-check';
import ICAL from 'ical.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_PARAMETERS, type ParameterDesigns, parametersOf } from '#lib/channels/feed-lines.ts';

// The parameter count checked before ical.js reads a content line (issue 41, item 1): it must count what
// ical.js's parser walks, or a line can hide its parameters from the check and cost ical.js seconds. The
// review found a stray quote (`P=a"`) did: the check took any `"` for the start of a quoted value, ical.js
// takes one only right after `=`.

const designs = ICAL.design.defaultSet.param as ParameterDesigns;

/**
 * The parameters ical.js itself walks on a line, or undefined when it refuses the line: its parameter
 * loop unescapes each value once (`_rfc6868Escape`), after unescaping `","` first for a multi-valued one.
 */
function walkedByIcal(line: string): number | undefined {
  const escaped: string[] = [];
  const original = ICAL.parse._rfc6868Escape;
  const spy = vi.spyOn(ICAL.parse, '_rfc6868Escape').mockImplementation((value: string) => {
    escaped.push(value);
    return original(value);
  });
  try {
    ICAL.parse.property(line);
  } catch {
    return undefined;
  } finally {
    spy.mockRestore();
  }
  let count = 0;
  for (let index = 0; index < escaped.length; index += 1) {
    // A multi-valued parameter's delimiter comes first, then its value.
    if (escaped[index] === '","' && index + 1 < escaped.length) index += 1;
    count += 1;
  }
  return count;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('parametersOf', () => {
  it.each([
    ['no parameter', 'SUMMARY:Reserved', 0],
    ['a value of semicolons', `DESCRIPTION:${'a;'.repeat(500)}`, 0],
    ['two parameters', 'DTSTART;VALUE=DATE;X-A=b:20310105', 2],
    [
      'a quoted value holding ; and :',
      'ATTENDEE;CN="Smith; Jones: guests";ROLE=CHAIR:mailto:a@example.com',
      2,
    ],
    ['a stray quote in a value', `X-NOTE;P=a"${';Q=1'.repeat(5)}:note`, 6],
    ['a multi-valued quoted list', 'ATTENDEE;MEMBER="mailto:a@x","mailto:b;Q=1@x";CN=c:mailto:d@x', 2],
  ])('counts %s as ical.js walks it', (_, line, count) => {
    expect(parametersOf(line, designs, Number.POSITIVE_INFINITY)).toBe(count);
    expect(walkedByIcal(line)).toBe(count);
  });

  it('sees the parameters behind a stray quote, and stops counting past the limit', () => {
    const line = `X-NOTE;P=a"${';Q=1'.repeat(480_000)}:note`;
    expect(parametersOf(line, designs)).toBe(MAX_PARAMETERS + 1);
  });

  it('counts as ical.js does on any line of parameters, quotes, delimiters and multi-valued names', () => {
    const token = fc.constantFrom(';MEMBER="', ';CN="', ';Q=', ';', '=', '"', '","', ':', ',', 'a', '^n');
    fc.assert(
      fc.property(fc.array(token, { maxLength: 40 }), (tokens) => {
        const line = `X-P;${tokens.join('')}:v`;
        const walked = walkedByIcal(line);
        // A line ical.js refuses is refused whatever the count; one it reads is counted exactly.
        if (walked !== undefined) expect(parametersOf(line, designs, Number.POSITIVE_INFINITY)).toBe(walked);
      }),
      { numRuns: 2_000 },
    );
  });
});
