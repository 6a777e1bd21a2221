import { randomUUID } from 'node:crypto';

// Node 20 has no JSON.rawJSON. Within `stringify`, a RawJson serializes as a marker string that carries this
// process's nonce (no text a client sends can name it), and each marker is then replaced by its JSON.
const NONCE = randomUUID();
const MARK = `\u0000raw-json:${NONCE}:`;
const MARKED = new RegExp(`"\\\\u0000raw-json:${NONCE}:(\\d+)"`, 'g');
let spliced: string[] | undefined;

/**
 * A value already serialized as JSON, which `stringify` puts into an answer as it is: JSON that is kept
 * between requests (a rated item's wire, `functions/items/rated-cache.ts`) is neither parsed nor serialized again.
 * Serialized any other way (`JSON.stringify`), it is the value its JSON stands for.
 */
export class RawJson {
  constructor(readonly json: string) {}

  toJSON(): unknown {
    if (!spliced) return JSON.parse(this.json);
    spliced.push(this.json);
    return `${MARK}${spliced.length - 1}`;
  }
}

/** `JSON.stringify` of a value that may hold RawJson values, each written as its own JSON. */
export function stringify(value: unknown): string {
  const outer = spliced;
  const parts: string[] = [];
  spliced = parts;
  try {
    const json = JSON.stringify(value);
    // Only the markers of this call are replaced; anything else stays the text it was.
    return parts.length
      ? json.replace(MARKED, (marker, index: string) => parts[Number(index)] ?? marker)
      : json;
  } finally {
    spliced = outer;
  }
}
