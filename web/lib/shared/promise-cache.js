// promise-cache.js: promises of results kept by key, least recently used first: the page's shared caches (the
// element's analyses, the worker's attention matrices). An LruMap (lru-map.js) bounded by the bytes of what they
// resolve to, counted on arrival, and by their number; pending ones cost nothing yet and are never evicted. A
// rejected one is forgotten, so the next caller asks again.
import { LruMap } from './lru-map.js';

export class PromiseCache {
  // budget: bytes; maxEntries: at most this many; sizeOf(value) -> its bytes; keepNewest: the value just arrived
  // stays even if it alone is over the budget (else it goes too).
  constructor({ budget, maxEntries = Infinity, sizeOf, keepNewest = false }) {
    this.sizeOf = sizeOf;
    // key -> {promise, settled, value}
    this.entries = new LruMap({ budget, maxEntries, keepNewest, removable: (entry) => entry.settled });
  }

  // The promise under key, started by start() if there is none; either way it becomes the most recently used.
  get(key, start) {
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { promise: start(), settled: false, value: undefined };
      this.entries.set(key, entry);
      entry.promise.then((value) => {
        if (this.entries.peek(key) !== entry) return;
        Object.assign(entry, { settled: true, value });
        this.entries.resize(key, this.sizeOf(value));
      }, () => {
        if (this.entries.peek(key) === entry) this.entries.delete(key);
      });
    }
    return entry.promise;
  }

  // What key resolved to, or undefined (pending, failed or not here); it does not count as a use.
  value(key) {
    return this.entries.peek(key)?.value;
  }

  get size() {
    return this.entries.size;
  }

  get bytes() {
    return this.entries.bytes;
  }
}
