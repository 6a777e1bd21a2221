import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** The collections of records the state holds, each keyed by id. */
export const COLLECTIONS = [
  'sessions',
  'intents',
  'charges',
  'refunds',
  'events',
  'deliveries',
  'idempotency',
] as const;
type Collection = (typeof COLLECTIONS)[number];
type Plain = Record<string, unknown>;

interface JournalLine {
  meta?: Plain;
  set?: Partial<Record<Collection, Plain>>;
  del?: Partial<Record<Collection, string[]>>;
}

/** A journal this long is folded into the snapshot (at about 10 KB a line, some 100 MB). */
const COMPACT_AFTER_LINES = 10_000;

/**
 * State that survives a kill: a JSON snapshot, written aside and renamed over (atomic), plus a journal of
 * the records changed since, one JSON line per `flush()`. Appending costs what changed, where rewriting the
 * snapshot on every answer cost the whole state (measured: docs/payments-stand-in.md). A line torn by a
 * kill is the last one, and is dropped on load: its answer never left.
 *
 * Changes are seen by proxies: assigning a record into a collection, a field of a record, or a top-level
 * field marks it; nested objects are replaced whole, never edited in place.
 */
export class Journaled<S extends Record<Collection, Plain>> {
  readonly state: S;
  readonly #raw: S;
  readonly #snapshot: string | undefined;
  readonly #journal: string | undefined;
  #lines = 0;
  #meta = false;
  readonly #set = new Map<Collection, Set<string>>();
  readonly #del = new Map<Collection, Set<string>>();
  readonly #proxies = new WeakMap<object, object>();

  constructor(snapshot: string | undefined, empty: () => S) {
    this.#snapshot = snapshot;
    this.#journal = snapshot ? `${snapshot}.journal` : undefined;
    this.#raw =
      snapshot && existsSync(snapshot) ? (JSON.parse(readFileSync(snapshot, 'utf8')) as S) : empty();
    if (this.#journal && existsSync(this.#journal)) {
      const lines = readFileSync(this.#journal, 'utf8').split('\n').filter(Boolean);
      lines.forEach((text, index) => {
        let line: JournalLine;
        try {
          line = JSON.parse(text) as JournalLine;
        } catch (error) {
          if (index === lines.length - 1) return;
          throw new Error(`${this.#journal} line ${index + 1} is not JSON`, { cause: error });
        }
        this.#apply(line);
      });
      if (lines.length > 0) this.compact();
    }
    this.state = this.#top();
  }

  #apply(line: JournalLine): void {
    Object.assign(this.#raw, line.meta ?? {});
    for (const [name, records] of Object.entries(line.set ?? {}))
      Object.assign(this.#raw[name as Collection], records);
    for (const [name, ids] of Object.entries(line.del ?? {}))
      for (const id of ids) delete this.#raw[name as Collection][id];
  }

  #mark(name: Collection, id: string, deleted: boolean): void {
    const [add, remove] = deleted ? [this.#del, this.#set] : [this.#set, this.#del];
    remove.get(name)?.delete(id);
    const ids = add.get(name) ?? new Set<string>();
    ids.add(id);
    add.set(name, ids);
  }

  #record(name: Collection, id: string, record: Plain): Plain {
    const known = this.#proxies.get(record);
    if (known) return known as Plain;
    const proxy = new Proxy(record, {
      set: (target, field, value) => {
        target[field as string] = value;
        this.#mark(name, id, false);
        return true;
      },
    });
    this.#proxies.set(record, proxy);
    return proxy;
  }

  #collection(name: Collection): Plain {
    const target = this.#raw[name];
    const known = this.#proxies.get(target);
    if (known) return known as Plain;
    const proxy = new Proxy(target, {
      get: (records, id) => {
        const record = records[id as string];
        return typeof id === 'string' && record && typeof record === 'object'
          ? this.#record(name, id, record as Plain)
          : record;
      },
      set: (records, id, value) => {
        records[id as string] = value;
        this.#mark(name, id as string, false);
        return true;
      },
      deleteProperty: (records, id) => {
        delete records[id as string];
        this.#mark(name, id as string, true);
        return true;
      },
    });
    this.#proxies.set(target, proxy);
    return proxy;
  }

  #top(): S {
    return new Proxy(this.#raw, {
      get: (raw, field) =>
        (COLLECTIONS as readonly (string | symbol)[]).includes(field)
          ? this.#collection(field as Collection)
          : raw[field as keyof S],
      set: (raw, field, value) => {
        (raw as Plain)[field as string] = value;
        this.#meta = true;
        return true;
      },
    });
  }

  /** Appends what changed since the last flush (nothing when nothing did). */
  flush(): void {
    if (!this.#journal) return;
    const line: JournalLine = {};
    if (this.#meta)
      line.meta = Object.fromEntries(
        Object.entries(this.#raw).filter(([key]) => !COLLECTIONS.includes(key as Collection)),
      );
    for (const [name, ids] of this.#set)
      if (ids.size)
        line.set = {
          ...line.set,
          [name]: Object.fromEntries([...ids].map((id) => [id, this.#raw[name][id]])),
        };
    for (const [name, ids] of this.#del) if (ids.size) line.del = { ...line.del, [name]: [...ids] };
    this.#meta = false;
    this.#set.clear();
    this.#del.clear();
    if (!line.meta && !line.set && !line.del) return;
    mkdirSync(dirname(this.#journal), { recursive: true });
    appendFileSync(this.#journal, `${JSON.stringify(line)}\n`);
    this.#lines += 1;
    if (this.#lines >= COMPACT_AFTER_LINES) this.compact();
  }

  /** Rewrites the snapshot atomically with everything, then empties the journal (replaying it again is harmless). */
  compact(): void {
    if (!this.#snapshot || !this.#journal) return;
    mkdirSync(dirname(this.#snapshot), { recursive: true });
    const aside = `${this.#snapshot}.${process.pid}.tmp`;
    writeFileSync(aside, JSON.stringify(this.#raw));
    renameSync(aside, this.#snapshot);
    writeFileSync(aside, '');
    renameSync(aside, this.#journal);
    this.#lines = 0;
  }
}
