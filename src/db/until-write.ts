// Reads remembered until the next write, on a database this process alone writes.
//
// The embedded database (PGlite) has one writer: this process (DATA_DIR is locked, src/db/lock.ts;
// PGlite cannot be opened twice). Every statement it runs is sent through this process's handle,
// so the handle can count the writes that have finished: its `writeEpoch` rises when a statement
// that may write has finished (or failed). A read whose answer was taken at epoch E is still the
// database's answer while the epoch is E:
//   - the handle's statements run in the order they are sent (one connection), so a read sent at E
//     sees every write that finished before it was sent;
//   - a write that finishes after the read was sent raises the epoch, so that answer is not given again;
//   - a write still running may or may not be seen by a kept answer, exactly as if the request had
//     come a moment earlier. Nobody can know about it yet: its caller learns of it only once it has
//     finished, and by then the epoch has risen;
//   - a read outside a transaction waits for an open one to end, so it never sees uncommitted rows.
// So the two statements every authenticated embedded request paid before its own (the session check
// and the list's data version) are not repeated while nothing was written: a revoked session, a
// disabled account or a new consultation raises the epoch before its request is answered, and the
// next request reads again. PostgreSQL has other writers (other processes, an operator's psql), so
// its handle has no epoch and every read goes to the server.
//
// Classification is conservative: a statement is a read only when it starts with `select` and names
// nothing that writes (a data-modifying CTE starts with `with`; `for update` locks and counts as a
// write). Anything else, including every multi-statement script (`exec`), raises the epoch. A false
// "write" costs one repeated read; a false "read" would keep a stale answer, so the test of this file
// (test/until-write.test.ts) pins the words.
//
// One exception keeps idle periodic work from dropping every kept answer (the scheduler's jobs run
// eleven `update`/`delete` statements every 30 s, nearly always matching nothing; at half of the
// embedded peak each pass stalled answers for ~130 ms): a plain `insert`, `update` or `delete` that
// reports 0 rows changed no row, so it leaves the epoch. Its triggers fire per row, or per statement
// over empty transition tables (migration 0700), so they changed nothing either.
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

/** A database handle whose only writer is this process: its epoch rises when a write has finished. */
export interface SoleWriter {
  writeEpoch(): number;
}

export function isSoleWriter(q: Queryable): q is Queryable & SoleWriter {
  return typeof (q as Partial<SoleWriter>).writeEpoch === 'function';
}

// A single data-modifying statement (not a CTE, not a script): its row count is all it changed.
const ROW_WRITE = /^\s*(?:insert|update|delete)\b/i;

/** True when the statement may write, unless it reports 0 rows changed (a plain insert/update/delete). */
export function changedRows(sql: string, rowCount: number | undefined): boolean {
  return !(ROW_WRITE.test(sql) && rowCount === 0 && !sql.includes(';'));
}

/**
 * The epoch counter a handle keeps. `around(sql, send, rowsOf)` runs one statement: a statement that
 * may write raises the epoch once it has finished or failed, unless it is a plain row write that
 * reports (through `rowsOf`) 0 rows changed.
 */
export function writeCounter(): { around<T>(sql: string, send: () => Promise<T>, rowsOf?: (result: T) => number | undefined): Promise<T>; writeEpoch: () => number } {
  let epoch = 0;
  return {
    async around<T>(sql: string, send: () => Promise<T>, rowsOf?: (result: T) => number | undefined): Promise<T> {
      if (!mayWrite(sql)) return send();
      let result: T;
      try {
        result = await send();
      } catch (err) {
        epoch++;
        throw err;
      }
      if (changedRows(sql, rowsOf?.(result))) epoch++;
      return result;
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
    // Taken before the read is sent: a write finishing after this moment makes the answer stale.
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
