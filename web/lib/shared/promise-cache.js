// promise-cache.js: promises of results kept by key, least recently used first: the page's shared caches (the
// element's analyses, the worker's attention matrices). Bounded by the bytes of what they resolve to, counted on
// arrival, and by their number; pending ones cost nothing yet. A rejected one is forgotten, so the next caller asks
// again.
export class PromiseCache {
  // budget: bytes; maxEntries: at most this many; sizeOf(value) -> its bytes; keepNewest: the value just arrived
  // stays even if it alone is over the budget (else it goes too).
  constructor({ budget, maxEntries = Infinity, sizeOf, keepNewest = false }) {
    Object.assign(this, { budget, maxEntries, sizeOf, keepNewest });
    this.entries = new Map(); // key -> {promise, settled, value, bytes}
    this.bytes = 0;
  }

  // The promise under key, started by start() if there is none; either way it becomes the most recently used.
  get(key, start) {
    let entry = this.entries.get(key);
    if (entry) this.entries.delete(key);
    else {
      entry = { promise: start(), settled: false, value: undefined, bytes: 0 };
      entry.promise.then((value) => {
        if (this.entries.get(key) !== entry) return;
        Object.assign(entry, { settled: true, value, bytes: this.sizeOf(value) });
        this.bytes += entry.bytes;
        this.evict(this.keepNewest ? key : undefined);
      }, () => this.forget(key, entry));
    }
    this.entries.set(key, entry);
    return entry.promise;
  }

  // What key resolved to, or undefined (pending, failed or not here); it does not count as a use.
  value(key) {
    return this.entries.get(key)?.value;
  }

  get size() {
    return this.entries.size;
  }

  // Oldest first, settled ones other than keep, until within both bounds: past the number any of them, past the
  // budget those holding bytes.
  evict(keep) {
    for (const [key, e] of this.entries) {
      const overEntries = this.entries.size > this.maxEntries;
      if (!overEntries && this.bytes <= this.budget) break;
      if (e.settled && key !== keep && (overEntries || e.bytes)) this.forget(key, e);
    }
  }

  forget(key, entry) {
    if (this.entries.get(key) !== entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }
}
