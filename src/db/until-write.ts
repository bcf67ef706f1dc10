// Reads remembered until the next write, on a database this process alone writes (issue 28).
//
// The embedded database (PGlite) has one writer: this process (DATA_DIR is locked, src/db/lock.ts;
// PGlite cannot be opened twice). Every statement it runs is sent through this process's handle,
// so the handle can count the statements that may write: its `writeEpoch` changes before such a
// statement is sent. A read whose answer was taken at epoch E is still the database's answer while
// the epoch is E: the epoch changes when a write is sent and again when it has finished, so an
// unchanged epoch means no write was sent, running or finishing since the read was sent (and a read
// outside a transaction waits for an open one to end, so it never sees uncommitted rows). So the two statements every authenticated embedded request paid before its own (the
// session check and the list's data version) are not repeated while nothing was written: a revoked
// session, a disabled account or a new consultation raises the epoch before it is written, and the
// next request reads again. PostgreSQL has other writers (other processes, an operator's psql), so
// its handle has no epoch and every read goes to the server.
//
// Classification is conservative: a statement is a read only when it starts with `select` and names
// nothing that writes (a data-modifying CTE starts with `with`; `for update` locks and counts as a
// write). Anything else, including every multi-statement script (`exec`), raises the epoch. A false
// "write" costs one repeated read; a false "read" would keep a stale answer, so the test of this file
// (test/until-write.test.ts) pins the words.
import type { Queryable } from './index.ts';

const SELECT = /^\s*select\b/i;
// Words a select could write with: modifying statements inside a function call's argument cannot
// exist in SQL, but these functions write (sequences, notifications, settings, advisory locks,
// large objects) and the key words cover `for update` / `for share` locks and anything unexpected.
const WRITES = /\b(?:insert|update|delete|merge|truncate|copy|into|nextval|setval|pg_notify|set_config|pg_advisory\w*|lo_\w+|for\s+share|for\s+no\s+key|for\s+key)\b/i;

// The statement texts are few and fixed (the repositories' constants and compiled builders): the
// answer is kept per text, capped so that texts built at run time cannot grow it without bound.
const classified = new Map<string, boolean>();
const CLASSIFIED_MAX = 2000;

/** True when the statement may change the database (every statement that is not a plain read). */
export function mayWrite(sql: string): boolean {
  const known = classified.get(sql);
  if (known !== undefined) return known;
  const writes = !SELECT.test(sql) || WRITES.test(sql);
  if (classified.size < CLASSIFIED_MAX) classified.set(sql, writes);
  return writes;
}

/** A database handle whose only writer is this process: its epoch changes before any write is sent. */
export interface SoleWriter {
  writeEpoch(): number;
}

export function isSoleWriter(q: Queryable): q is Queryable & SoleWriter {
  return typeof (q as Partial<SoleWriter>).writeEpoch === 'function';
}

/**
 * The epoch counter a handle keeps. `around(sql, send)` runs one statement: a statement that may
 * write raises the epoch synchronously before it is sent and again once it has finished (or failed),
 * so an answer is kept only when no write was in flight at any moment between the read's sending and
 * the check. That holds without relying on the order in which the driver runs queued statements.
 */
export function writeCounter(): { around<T>(sql: string, send: () => Promise<T>): Promise<T>; writeEpoch: () => number } {
  let epoch = 0;
  return {
    async around<T>(sql: string, send: () => Promise<T>): Promise<T> {
      if (!mayWrite(sql)) return send();
      epoch++;
      try {
        return await send();
      } finally {
        epoch++;
      }
    },
    writeEpoch: () => epoch,
  };
}

/**
 * Answers remembered per key until the database's next write (only on a sole-writer handle; on any
 * other, every call reads). `undefined` answers are not remembered: a miss is always asked again.
 * Bounded: the oldest entry goes first once `max` keys are held.
 */
export class UntilWrite<V> {
  private readonly entries = new Map<string, { epoch: number; value: V }>();

  constructor(private readonly max: number) {}

  async get(q: Queryable, key: string, read: () => Promise<V | undefined>): Promise<V | undefined> {
    if (!isSoleWriter(q)) return read();
    // Taken before the read is sent: a write sent after this moment makes the answer stale.
    const epoch = q.writeEpoch();
    const held = this.entries.get(key);
    if (held && held.epoch === epoch) return held.value;
    const value = await read();
    // Re-inserted at the end (the Map's order is the eviction order); a miss is not kept.
    this.entries.delete(key);
    if (value === undefined) return value;
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { epoch, value });
    return value;
  }
}
