// Answered pages kept in memory and served again while their data version is unchanged.
// Used by the consultation list (src/modules/consultations/routes.ts), whose version is the
// account's data version of migration 0870: the page's own statement is most of the route's cost,
// and a patient's list changes far less often than it is read.
//
// Why the list cannot serve stale or foreign data through it:
// - The key starts with the account id from the verified session, so an entry is only ever served
//   to its own account, and only after the session check has passed.
// - The version is raised by triggers in the transaction of every write to a table the page reads
//   (test/list-cache.test.ts fails when the list reads a table without them), so a committed write
//   changes it before any later request can read it.
// - A page is filed under the version read in the SAME statement as the page, so it is never newer
//   or older than its version; a request that sees another version recomputes.
// Entries hold whole response bodies (identity document numbers included) in this process's memory
// only; they are evicted least recently used first, within LIST_CACHE_MB (deps.pageCache, created
// by src/runtime.ts; /metrics shows list_cache_*).

interface Entry {
  version: string;
  body: Buffer;
}

export class PageCache {
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;
  #hits = 0;
  #misses = 0;

  constructor(private readonly maxBytes: number) {}

  /** The body filed under key, when it was filed at exactly this version. */
  get(key: string, version: string): Buffer | undefined {
    const e = this.#entries.get(key);
    if (!e || e.version !== version) {
      this.#misses++;
      return undefined;
    }
    this.#hits++;
    // Most recently used last: Map keeps insertion order, so re-inserting moves it to the end.
    this.#entries.delete(key);
    this.#entries.set(key, e);
    return e.body;
  }

  set(key: string, version: string, body: Buffer): void {
    this.#drop(key);
    if (body.length > this.maxBytes) return;
    this.#entries.set(key, { version, body });
    this.#bytes += body.length;
    for (const oldest of this.#entries.keys()) {
      if (this.#bytes <= this.maxBytes) break;
      this.#drop(oldest);
    }
  }

  /** For /metrics: lookups answered and not since the start, bytes and entries held now. */
  stats(): { hits: number; misses: number; bytes: number; entries: number } {
    return { hits: this.#hits, misses: this.#misses, bytes: this.#bytes, entries: this.#entries.size };
  }

  #drop(key: string): void {
    const e = this.#entries.get(key);
    if (!e) return;
    this.#bytes -= e.body.length;
    this.#entries.delete(key);
  }
}
