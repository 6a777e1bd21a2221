// Checks of a feed's raw lines, made before a parser reads them.

/**
 * Parameters one property may carry. Real feeds use a handful (`VALUE`, `TZID`, `CN`…); ical.js reads each
 * by scanning the rest of the line, so a line of half a million parameters (still under 2 MB) takes it
 * seconds, during which every other channel of the round waits. Checked before parsing, in one pass.
 */
export const MAX_PARAMETERS = 100;

/**
 * The number of the first content line (folded lines joined) whose name carries more than MAX_PARAMETERS
 * parameters (`;` before the first `:` outside quotes), or 0 when none does. One pass over the text.
 */
export function crowdedLine(body: string): number {
  let line = 1;
  let parameters = 0;
  let inValue = false;
  let quoted = false;
  for (let index = 0; index < body.length; index += 1) {
    const char = body.charCodeAt(index);
    if (char === 10) {
      // A line break followed by a space or tab folds the next line into this one.
      const next = body.charCodeAt(index + 1);
      if (next === 32 || next === 9) continue;
      line += 1;
      parameters = 0;
      inValue = false;
      quoted = false;
      continue;
    }
    if (inValue || char === 13) continue;
    if (char === 34) quoted = !quoted;
    else if (!quoted && char === 58) inValue = true;
    else if (!quoted && char === 59 && ++parameters > MAX_PARAMETERS) return line;
  }
  return 0;
}
