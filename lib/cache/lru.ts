/** What a cache offers its readers: a hit, or nothing; a value to keep. */
export interface Cache<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): void;
}

/**
 * The one in-process least-recently-used cache: at most `max` entries and, when `sizeOf` is
 * given, at most `maxBytes` of them; past either bound the least recently used go first. A
 * value larger than `maxBytes` alone is not kept (it would evict everything and then itself).
 * Every cache of immutable things (lake files, metadata, parsed projects, derived keys) is one
 * of these rather than a Map with its own eviction rule.
 */
export class Lru<K, V> implements Cache<K, V> {
  // A Map iterates in insertion order: re-inserting on each hit keeps the least recently used first.
  private readonly entries = new Map<K, { value: V; bytes: number }>();
  private held = 0;
  readonly max: number;
  readonly maxBytes: number;
  private readonly sizeOf?: (value: V) => number;

  constructor(o: { max?: number; maxBytes?: number; sizeOf?: (value: V) => number }) {
    this.max = o.max ?? Infinity;
    this.maxBytes = o.maxBytes ?? Infinity;
    this.sizeOf = o.sizeOf;
  }

  get(key: K): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.entries.delete(key);
    this.entries.set(key, e);
    return e.value;
  }

  set(key: K, value: V): void {
    const bytes = this.sizeOf?.(value) ?? 0;
    if (bytes > this.maxBytes) return;
    this.delete(key);
    this.entries.set(key, { value, bytes });
    this.held += bytes;
    for (const [k, e] of this.entries) {
      if (this.entries.size <= this.max && this.held <= this.maxBytes) break;
      this.entries.delete(k);
      this.held -= e.bytes;
    }
  }

  delete(key: K): void {
    const old = this.entries.get(key);
    if (!old) return;
    this.entries.delete(key);
    this.held -= old.bytes;
  }

  clear(): void {
    this.entries.clear();
    this.held = 0;
  }

  /** Entries held. */
  get size(): number { return this.entries.size; }
  /** Bytes held (as `sizeOf` counts them; 0 without it). */
  get bytes(): number { return this.held; }
}
