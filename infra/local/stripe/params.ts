import {
  invalidEmpty,
  invalidInteger,
  invalidParam,
  missingParam,
  StripeParamError,
  unknownParam,
} from './errors.ts';

/** Parameters as `qs` parses Stripe's bracketed form encoding: strings, arrays and nested objects. */
export type Params = Record<string, unknown>;

interface Need {
  required?: boolean;
}

const isObject = (value: unknown): value is Params =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads one level of parameters the way Stripe's validation answers: a missing required one is
 * `parameter_missing`, a malformed one `parameter_invalid_*`, and any left unread at `done()` is
 * `parameter_unknown` (the stand-in implements a subset, so a parameter it would silently drop is refused).
 */
export class ParamReader {
  readonly #input: Params;
  readonly #prefix: string;
  readonly #read = new Set<string>();

  constructor(input: Params, prefix = '') {
    this.#input = input;
    this.#prefix = prefix;
  }

  /** The full name of a parameter, in Stripe's bracket form (`line_items[0][quantity]`). */
  name(key: string): string {
    return this.#prefix ? `${this.#prefix}[${key}]` : key;
  }

  #take(key: string, need: Need): unknown {
    this.#read.add(key);
    const value = this.#input[key];
    if (value === undefined) {
      if (need.required) throw missingParam(this.name(key));
      return undefined;
    }
    if (value === '') throw invalidEmpty(this.name(key));
    return value;
  }

  has(key: string): boolean {
    return this.#input[key] !== undefined;
  }

  string(key: string, need: Need & { max?: number } = {}): string | undefined {
    const value = this.#take(key, need);
    if (value === undefined) return undefined;
    if (typeof value !== 'string')
      throw invalidParam(
        this.name(key),
        `Invalid string: ${JSON.stringify(value)}`,
        'parameter_invalid_string',
      );
    const max = need.max ?? 5000;
    if (value.length > max)
      throw invalidParam(
        this.name(key),
        `Invalid string: ${value.slice(0, 20)}...; must be at most ${max} characters`,
      );
    return value;
  }

  integer(key: string, need: Need & { min?: number; max?: number } = {}): number | undefined {
    const value = this.#take(key, need);
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !/^-?\d{1,15}$/.test(value)) throw invalidInteger(this.name(key), value);
    const number = Number(value);
    if (need.min !== undefined && number < need.min)
      throw invalidParam(this.name(key), `This value must be greater than or equal to ${need.min}.`);
    if (need.max !== undefined && number > need.max)
      throw invalidParam(this.name(key), `This value must be less than or equal to ${need.max}.`);
    return number;
  }

  choice<T extends string>(key: string, values: readonly T[], need: Need = {}): T | undefined {
    const value = this.string(key, need);
    if (value === undefined) return undefined;
    if (!(values as readonly string[]).includes(value))
      throw invalidParam(this.name(key), `Invalid ${this.name(key)}: must be one of ${values.join(', ')}`);
    return value as T;
  }

  /** `metadata[key]=value`: at most 50 keys of 40 characters, values of 500, as Stripe allows. */
  metadata(key: string): Record<string, string> | undefined {
    this.#read.add(key);
    const value = this.#input[key];
    if (value === undefined || value === '') return undefined;
    if (!isObject(value)) throw invalidParam(this.name(key), 'Invalid object');
    const entries = Object.entries(value);
    if (entries.length > 50) throw invalidParam(this.name(key), 'You can specify up to 50 keys in metadata.');
    const out: Record<string, string> = {};
    for (const [name, text] of entries) {
      if (typeof text !== 'string') throw invalidParam(`${this.name(key)}[${name}]`, 'Invalid string');
      if (name.length > 40)
        throw invalidParam(`${this.name(key)}[${name}]`, 'Metadata keys can have up to 40 characters.');
      if (text.length > 500)
        throw invalidParam(
          `${this.name(key)}[${name}]`,
          `Metadata values can have up to 500 characters, but you passed in a value that is ${text.length} characters.`,
        );
      // An empty value unsets a key: on a new object there is nothing to unset.
      if (text !== '') out[name] = text;
    }
    return out;
  }

  object(key: string, need: Need = {}): ParamReader | undefined {
    const value = this.#take(key, need);
    if (value === undefined) return undefined;
    if (!isObject(value)) throw invalidParam(this.name(key), 'Invalid object');
    return new ParamReader(value, this.name(key));
  }

  /** A list sent as `key[0][…]`, `key[1][…]` (qs gives an array, or an object when indices skip). */
  list(key: string, need: Need & { max?: number } = {}): ParamReader[] | undefined {
    const value = this.#take(key, need);
    if (value === undefined) return undefined;
    const items = Array.isArray(value)
      ? value
      : isObject(value) && Object.keys(value).every((k) => /^\d+$/.test(k))
        ? Object.keys(value)
            .sort((a, b) => Number(a) - Number(b))
            .map((k) => value[k])
        : null;
    if (!items) throw invalidParam(this.name(key), 'Invalid array');
    if (need.max !== undefined && items.length > need.max)
      throw invalidParam(this.name(key), `You may pass at most ${need.max} items in ${this.name(key)}.`);
    return items.map((item, index) => {
      if (!isObject(item)) throw invalidParam(`${this.name(key)}[${index}]`, 'Invalid object');
      return new ParamReader(item, `${this.name(key)}[${index}]`);
    });
  }

  /** A list of strings (`key[0]=a&key[1]=b`). */
  strings(key: string, need: Need & { max?: number } = {}): string[] | undefined {
    const value = this.#take(key, need);
    if (value === undefined) return undefined;
    const items = Array.isArray(value) ? value : isObject(value) ? Object.values(value) : [value];
    if (!items.every((item): item is string => typeof item === 'string'))
      throw invalidParam(this.name(key), 'Invalid array');
    if (need.max !== undefined && items.length > need.max)
      throw invalidParam(this.name(key), `You may pass at most ${need.max} items in ${this.name(key)}.`);
    return items;
  }

  /** `expand[]`: dotted paths, at most four levels deep as Stripe allows. */
  expand(): string[] {
    this.#read.add('expand');
    const value = this.#input.expand;
    if (value === undefined || value === '') return [];
    const paths = Array.isArray(value) ? value : isObject(value) ? Object.values(value) : [value];
    if (!paths.every((path): path is string => typeof path === 'string'))
      throw invalidParam('expand', 'Invalid array');
    for (const path of paths)
      if (path.split('.').length > 4)
        throw invalidParam('expand', `You cannot expand more than 4 levels of a property. Property: ${path}`);
    return paths;
  }

  /** Refuses what was sent but never read. */
  done(): void {
    for (const key of Object.keys(this.#input)) if (!this.#read.has(key)) throw unknownParam(this.name(key));
  }
}

/** Checks a URL the way Stripe's `url_invalid` does: absolute http(s), with a host. */
export function checkUrl(reader: ParamReader, key: string): string | undefined {
  const value = reader.string(key, { max: 5000 });
  if (value === undefined) return undefined;
  // `{CHECKOUT_SESSION_ID}` is Stripe's template; URL() would encode its braces.
  let parsed: URL | undefined;
  try {
    parsed = new URL(value.replaceAll('{CHECKOUT_SESSION_ID}', 'x'));
  } catch {
    parsed = undefined;
  }
  if (!parsed || !['http:', 'https:'].includes(parsed.protocol))
    throw new StripeParamError({ code: 'url_invalid', param: reader.name(key), message: 'Not a valid URL' });
  return value;
}

/** A syntactically valid email (Stripe's `email_invalid`). */
export function checkEmail(reader: ParamReader, key: string): string | undefined {
  const value = reader.string(key, { max: 800 });
  if (value === undefined) return undefined;
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value))
    throw new StripeParamError({
      code: 'email_invalid',
      param: reader.name(key),
      message: `Invalid email address: ${value}`,
    });
  return value;
}

/** A three-letter currency code, lowered as Stripe stores it. */
export function checkCurrency(reader: ParamReader, key: string, need: Need = {}): string | undefined {
  const value = reader.string(key, need);
  if (value === undefined) return undefined;
  if (!/^[A-Za-z]{3}$/.test(value))
    throw invalidParam(reader.name(key), `Invalid currency: ${value.toLowerCase()}.`);
  return value.toLowerCase();
}
