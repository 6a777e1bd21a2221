/**
 * A least-recently-used map bounded by the total size of its values (what the instance caches of kept
 * JSON and written feeds use): reading or writing an entry makes it the most recent, and writing past the
 * bound drops the least recent until the rest fits. A value larger than the whole bound is not kept.
 *
 * In place of lru-cache (18 KB of a 490 KB bundle budget, issue 33) for the two calls made of it: a Map
 * keeps insertion order, so its first key is always the least recently used.
 */
export class SizedLru<K, V> {
  readonly #entries = new Map<K, { value: V; size: number }>();
  readonly #maxSize: number;
  readonly #sizeOf: (value: V) => number;
  #size = 0;

  constructor(options: { maxSize: number; sizeOf: (value: V) => number }) {
    this.#maxSize = options.maxSize;
    this.#sizeOf = options.sizeOf;
  }

  /** The total size of what is kept. */
  get totalSize(): number {
    return this.#size;
  }

  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  set(key: K, value: V): void {
    this.delete(key);
    const size = this.#sizeOf(value);
    if (size > this.#maxSize) return;
    this.#entries.set(key, { value, size });
    this.#size += size;
    for (const [oldest, entry] of this.#entries) {
      if (this.#size <= this.#maxSize) break;
      this.#entries.delete(oldest);
      this.#size -= entry.size;
    }
  }

  delete(key: K): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#size -= entry.size;
  }
}
