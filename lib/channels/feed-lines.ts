// Checks of a feed's content lines, made before ical.js reads each of them.

/**
 * Parameters one property may carry. Real feeds use a handful (`VALUE`, `TZID`, `CN`…); ical.js reads each
 * by scanning the rest of the line for the value's `:`, so a line of half a million parameters (still under
 * 2 MB) takes it seconds. Checked line by line before ical.js reads the line.
 */
export const MAX_PARAMETERS = 100;

/** What ical.js's design set says of a parameter that changes where its value ends. */
export type ParameterDesigns = Record<string, { multiValue?: unknown } | undefined>;

/**
 * The parameters ical.js would read on one unfolded content line, counted as its parser walks them (a
 * parameter is each `=` it reaches; a double quote opens a quoted value only right after `=`, and a
 * multi-valued one goes on over `","`), stopping past `limit`. Each step looks ahead as ical.js does, but the
 * search for the value's `:` is remembered, so the count costs one pass over the line however it is built.
 */
export function parametersOf(line: string, params: ParameterDesigns, limit = MAX_PARAMETERS): number {
  const valuePos = line.indexOf(':');
  const paramPos = line.indexOf(';');
  if (paramPos === -1 || (valuePos !== -1 && paramPos > valuePos)) return 0;
  const rest = line.slice(paramPos);
  // The first `:` at or after a position, remembered while it still answers: asked from growing positions.
  let cachedFrom = Number.POSITIVE_INFINITY;
  let cached = -1;
  const colonAfter = (from: number): number => {
    if (!(cachedFrom <= from && (cached === -1 || cached >= from))) {
      cachedFrom = from;
      cached = rest.indexOf(':', from);
    }
    return cached;
  };
  let lastParam = 0;
  let pos = 0;
  let count = 0;
  for (;;) {
    const equals = rest.indexOf('=', pos + 1);
    if (equals === -1) return count;
    count += 1;
    if (count > limit) return count;
    if (rest[equals + 1] === '"') {
      const name = rest.slice(lastParam + 1, equals).toLowerCase();
      const multiValue = name in params ? params[name]?.multiValue : undefined;
      pos = rest.indexOf('"', equals + 2);
      if (multiValue && pos !== -1)
        while (rest[pos + 1] === multiValue && rest[pos + 2] === '"') pos = rest.indexOf('"', pos + 3);
      // ical.js refuses a quote that never closes.
      if (pos === -1) return count;
      lastParam = rest.indexOf(';', pos);
      const propValuePos = colonAfter(pos);
      if (lastParam === -1 || (propValuePos !== -1 && lastParam > propValuePos)) return count;
    } else {
      const nextPos = rest.indexOf(';', equals + 1);
      const propValuePos = colonAfter(equals + 1);
      if ((propValuePos !== -1 && nextPos > propValuePos) || nextPos === -1) return count;
      lastParam = nextPos;
      pos = nextPos;
    }
  }
}
