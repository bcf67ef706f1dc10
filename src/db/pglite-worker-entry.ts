// The worker thread that runs the embedded database (src/db/pglite-worker.ts is the other end).
// Every statement's WASM work happens here, off the server's event loop. Requests arrive as
// messages with an id and are answered with that id; several can be in flight, and PGlite's own
// mutexes order them exactly as in-process (a statement outside a transaction waits for an open one
// to end). Errors are scrubbed here (scrubDbError), so bound parameters and the server's detail never
// leave this thread.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { pgliteOptions, scrubDbError } from './index.ts';
import { preparedStatements } from './pglite-prepared.ts';
import type { WorkerError, WorkerReply, WorkerRequest, WorkerStart } from './pglite-protocol.ts';

const port = parentPort;
if (!port) throw new Error('pglite-worker-entry runs only as a worker thread');

const start = workerData as WorkerStart;

/** An error as plain data: its message, name and the primitive fields scrubDbError left (code, constraint, statement...). */
function plainError(err: unknown): WorkerError {
  if (typeof err !== 'object' || err === null) return { name: 'Error', message: String(err), fields: {} };
  const e = err as Record<string, unknown>;
  const fields: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(e)) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') fields[key] = value;
  }
  return { name: typeof e.name === 'string' ? e.name : 'Error', message: typeof e.message === 'string' ? e.message : 'unknown error', fields };
}

/** Open transactions by id: the statements of one go to its transaction object; `end` settles it. */
interface OpenTx {
  t: Transaction;
  done: Promise<void>;
  settle(commit: boolean): void;
}
const transactions = new Map<number, OpenTx>();
let nextTx = 1;

// Thrown into PGlite's transaction callback to make it roll back; never leaves this thread.
const ROLLBACK = new Error('rolled back by the caller');

async function run(db: PGlite, request: WorkerRequest): Promise<WorkerReply> {
  switch (request.op) {
    case 'query': {
      const tx = request.tx === undefined ? undefined : transactions.get(request.tx)?.t;
      if (request.tx !== undefined && !tx) throw new Error('the transaction has ended');
      try {
        const result = await preparedStatements(db).query(request.sql, request.params, tx);
        return { id: request.id, ok: true, rows: result.rows, rowCount: result.affectedRows ?? 0 };
      } catch (err) {
        throw scrubDbError(err, request.sql);
      }
    }
    case 'exec':
      try {
        await db.exec(request.sql);
      } catch (err) {
        throw scrubDbError(err, request.sql);
      }
      return { id: request.id, ok: true };
    case 'begin':
      // Answered from inside PGlite's transaction callback (BEGIN has run and the transaction mutex
      // is held); the transaction settles when the main thread sends `end` for it.
      return new Promise<WorkerReply>((resolveBegin, rejectBegin) => {
        const tx = nextTx++;
        let begun = false;
        const done: Promise<void> = db
          .transaction(
            (t) =>
              new Promise<void>((resolve, reject) => {
                begun = true;
                transactions.set(tx, { t, done, settle: (commit) => (commit ? resolve() : reject(ROLLBACK)) });
                resolveBegin({ id: request.id, ok: true, tx });
              }),
          )
          .finally(() => transactions.delete(tx));
        // A BEGIN that fails (the database closed) rejects before the callback ran; later outcomes
        // belong to `end`.
        done.catch((err: unknown) => {
          if (begun) return;
          scrubDbError(err, 'begin');
          rejectBegin(err instanceof Error ? err : new Error('BEGIN failed'));
        });
      });
    case 'end': {
      const open = transactions.get(request.tx);
      if (!open) throw new Error('the transaction has ended');
      open.settle(request.commit);
      try {
        await open.done;
      } catch (err) {
        // A failed COMMIT (40001, 23505 of a deferred constraint) reaches the caller.
        if (err !== ROLLBACK) throw scrubDbError(err, 'commit');
      }
      return { id: request.id, ok: true };
    }
    case 'dump': {
      const blob = await db.dumpDataDir(request.compression);
      return { id: request.id, ok: true, data: await blob.arrayBuffer() };
    }
    case 'close':
      await db.close();
      return { id: request.id, ok: true };
  }
}

try {
  const db = new PGlite(pgliteOptions({ dataDir: start.dataDir, loadDataDir: start.loadDataDir ? new Blob([start.loadDataDir]) : undefined }));
  await db.waitReady;
  port.on('message', (request: WorkerRequest) => {
    run(db, request).then(
      (reply) => port.postMessage(reply, 'data' in reply && reply.data ? [reply.data] : []),
      (err: unknown) => port.postMessage({ id: request.id, ok: false, error: plainError(err) } satisfies WorkerReply),
    );
  });
  port.postMessage({ id: 0, ok: true } satisfies WorkerReply);
} catch (err) {
  port.postMessage({ id: 0, ok: false, error: plainError(err) } satisfies WorkerReply);
}
