// lru-map.js: a Map bounded by the bytes its values hold and by their number, least recently used out first. The
// one such cache of the library: the element's analyses and the page's matrices (promise-cache.js), the worker's
// queries and keys (kept-queries.js) and its models in wasm memory (worker/residency.js).
export class LruMap {
  // budget: bytes; maxEntries: at most this many; keepNewest: the value just set stays even if it alone is over the
  // budget; removable(value): whether eviction may take it (a pending promise may not); onEvict(value, key): told of
  // each value evicted or replaced (to free it).
  constructor({ budget = Infinity, maxEntries = Infinity, keepNewest = true, removable = () => true, onEvict } = {}) {
    Object.assign(this, { budget, maxEntries, keepNewest, removable, onEvict });
    this.map = new Map(); // key -> {value, bytes}, least recently used first
    this.bytes = 0;
  }

  get size() { return this.map.size; }
  has(key) { return this.map.has(key); }
  keys() { return this.map.keys(); }
  // [key, value] pairs, least recently used first
  *entries() { for (const [key, { value }] of this.map) yield [key, value]; }

  // The value under key, or undefined; it does not count as a use.
  peek(key) { return this.map.get(key)?.value; }

  // The value under key, now the most recently used, or undefined.
  get(key) {
    const entry = this.map.get(key);
    if (!entry) return undefined;
    this.map.delete(key);
    this.map.set(key, entry);
    return entry.value;
  }

  // Sets key's value, holding bytes, as the most recently used, then evicts down to the bounds.
  set(key, value, bytes = 0) {
    const old = this.map.get(key);
    if (old) {
      this.map.delete(key);
      this.bytes -= old.bytes;
      if (old.value !== value) this.onEvict?.(old.value, key);
    }
    this.map.set(key, { value, bytes });
    this.bytes += bytes;
    this.evict(this.keepNewest ? key : undefined);
  }

  // Counts key's value as holding bytes now (a promise's value arrived), then evicts down to the bounds.
  resize(key, bytes) {
    const entry = this.map.get(key);
    if (!entry) return;
    this.bytes += bytes - entry.bytes;
    entry.bytes = bytes;
    this.evict(this.keepNewest ? key : undefined);
  }

  // Removes key without telling onEvict; -> whether it was there.
  delete(key) {
    const entry = this.map.get(key);
    if (!entry) return false;
    this.map.delete(key);
    this.bytes -= entry.bytes;
    return true;
  }

  // Removes everything without telling onEvict.
  clear() {
    this.map.clear();
    this.bytes = 0;
  }

  // Evicts, oldest first, until one more value holding bytes would be within both bounds (before it arrives).
  makeRoom(bytes) { this.evict(undefined, { entries: 1, bytes }); }
  // Evicts down to the bounds now (a value that was not removable may be now), the newest kept if keepNewest.
  trim() { this.evict(this.keepNewest ? [...this.map.keys()].at(-1) : undefined); }
  // Oldest first, removable ones other than keep, until within both bounds, counting a value still to come
  // (incoming: {entries, bytes}): past the number any of them, past the budget those holding bytes.
  evict(keep, incoming = { entries: 0, bytes: 0 }) {
    for (const [key, entry] of this.map) {
      const overEntries = this.map.size + incoming.entries > this.maxEntries;
      if (!overEntries && this.bytes + incoming.bytes <= this.budget) break;
      if (key === keep || !this.removable(entry.value) || !(overEntries || entry.bytes)) continue;
      this.delete(key);
      this.onEvict?.(entry.value, key);
    }
  }
}
