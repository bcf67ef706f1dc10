// The embedded database in a worker thread (PGLITE_WORKER, default on; docs/performance.md).
// PGlite runs Postgres as synchronous WASM: in-process, every statement stalls the server's event
// loop for its whole duration, so HTTP parsing, JSON and token checks wait behind SQL and p99 grows
// with load. Here PGlite lives in a worker (src/db/pglite-worker-entry.ts) and this thread holds a
// proxy with the same Db interface: statements cross as messages, rows come back as plain objects
// (the type parsers run in the worker, so DATE stays a string and NUMERIC/INT8 are numbers), and
// errors come back with the fields scrubDbError left (code, constraint, statement...).
//
// Transactions: `tx(fn)` opens a PGlite transaction in the worker (exclusive, as in-process) and
// sends fn's statements to it; other statements wait in the worker on PGlite's mutex, exactly as
// in-process. As in-process, fn must use the transaction handle it is given: a statement on the Db
// itself inside fn waits for the transaction to end.
//
// The worker dying is not silent and not fatal to the process: it is reported on stderr, every
// pending and later statement rejects with a "connection terminated" error (57P01), which the HTTP
// layer answers 503 database_unavailable, and /readyz answers 503. The worker is not restarted: a
// process whose database died stops being ready and a supervisor restarts it (fail fast), which
// also reopens the data directory through PGlite's normal recovery.
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { DumpableDb, Queryable, Row } from './index.ts';
import type { WorkerError, WorkerReply, WorkerRequest, WorkerStart } from './pglite-protocol.ts';
import { writeCounter } from './until-write.ts';

type Request = WorkerRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;
type Success = Extract<WorkerReply, { ok: true }>;

/** The failure every statement gets once the worker is gone: isDatabaseUnavailable() says 503. */
function unavailable(why: string): Error {
  return Object.assign(new Error(`Connection terminated: the embedded database's worker thread stopped (${why})`), { code: '57P01' });
}

function toError(e: WorkerError): Error {
  const err = new Error(e.message);
  err.name = e.name;
  const { stack: _stack, message: _message, ...fields } = e.fields;
  return Object.assign(err, fields);
}

/**
 * Where the worker's code is: beside this file, built (.js, dist/) or not (.ts under tsx or vitest).
 * Sources need a TypeScript loader in the worker too. On Node 20 tsx registers its hooks on the main
 * thread only, whatever the worker's execArgv, so a small bootstrap registers them through tsx's API
 * in the worker before it imports the entry.
 */
function workerEntry(): { code: URL | string; evaluate: boolean } {
  const ext = extname(fileURLToPath(import.meta.url));
  const url = new URL(`./pglite-worker-entry${ext}`, import.meta.url);
  if (ext !== '.ts') return { code: url, evaluate: false };
  // The ESM build of tsx's API (require.resolve would give its CommonJS one).
  const api = pathToFileURL(join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist', 'esm', 'api', 'index.mjs')).href;
  return { code: `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); });`, evaluate: true };
}

// The worker behind each handle, for tests that stop it abruptly (test/pglite-worker.test.ts).
const workers = new WeakMap<object, Worker>();
export function workerOf(db: object): Worker | undefined {
  return workers.get(db);
}

export async function openPgliteWorker(options: { dataDir?: string; loadDataDir?: Blob } = {}): Promise<DumpableDb> {
  const start: WorkerStart = { dataDir: options.dataDir };
  if (options.loadDataDir) start.loadDataDir = await options.loadDataDir.arrayBuffer();
  const entry = workerEntry();
  const worker = new Worker(entry.code, {
    eval: entry.evaluate,
    workerData: start,
    transferList: start.loadDataDir ? [start.loadDataDir] : [],
    // Its output is the process's own (a crash's stack reaches stderr).
    stdout: false,
    stderr: false,
  });

  const pending = new Map<number, { resolve(reply: Success): void; reject(err: Error): void }>();
  let nextId = 1;
  let dead: Error | undefined;
  let closing = false;
  let lastError: string | undefined;

  // The worker keeps the process alive only while a statement is in flight, like an in-process
  // PGlite: a script that forgets close() still exits, and one awaiting a statement does not.
  const settle = (id: number) => {
    pending.delete(id);
    if (pending.size === 0) worker.unref();
  };

  worker.on('message', (reply: WorkerReply) => {
    const waiting = pending.get(reply.id);
    if (!waiting) return;
    settle(reply.id);
    if (reply.ok) waiting.resolve(reply);
    else waiting.reject(toError(reply.error));
  });
  worker.on('error', (err) => {
    lastError = err instanceof Error ? err.message.split('\n')[0] : String(err);
  });
  worker.on('exit', (code) => {
    dead = closing ? unavailable('closed') : unavailable(lastError ?? `exit code ${code}`);
    if (!closing) {
      process.stderr.write(`${JSON.stringify({ level: 50, time: Date.now(), msg: 'the embedded database worker stopped: statements now fail with 503 and /readyz is unavailable until the process is restarted', reason: lastError ?? `exit code ${code}` })}\n`);
    }
    for (const [id, waiting] of pending) {
      pending.delete(id);
      waiting.reject(dead);
    }
  });

  const call = (request: Request): Promise<Success> => {
    if (dead) return Promise.reject(dead);
    const id = nextId++;
    return new Promise<Success>((resolve, reject) => {
      if (pending.size === 0) worker.ref();
      pending.set(id, { resolve, reject });
      try {
        worker.postMessage({ ...request, id });
      } catch (err) {
        // A parameter that cannot be cloned (a function, a class with private state).
        settle(id);
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
  };

  try {
    // Start-up: the worker speaks first, with id 0, once PGlite is ready (or failed to open).
    await new Promise<Success>((resolve, reject) => pending.set(0, { resolve, reject }));
  } catch (err) {
    closing = true;
    await worker.terminate();
    throw err;
  }

  // Writes are counted as they finish (src/db/until-write.ts).
  const writes = writeCounter();
  const run = async (sql: string, params: readonly unknown[], tx?: number) => {
    const reply = await writes.around(sql, () => call({ op: 'query', sql, params: params as unknown[], tx }), (r) => r.rowCount);
    return { rows: reply.rows ?? [], rowCount: reply.rowCount ?? 0 };
  };
  const queryable = (tx?: number): Queryable => ({
    async query<T = Row>(sql: string, params: unknown[] = []) {
      return (await run(sql, params, tx)).rows as T[];
    },
    execute: (sql: string, params: readonly unknown[] = []) => run(sql, params, tx),
  });

  const db: DumpableDb = {
    kind: 'pglite',
    ...queryable(),
    async tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
      const begun = await call({ op: 'begin' });
      const tx = begun.tx;
      if (tx === undefined) throw new Error('the embedded database worker opened no transaction');
      let result: T;
      try {
        result = await fn(queryable(tx));
      } catch (err) {
        // Rolled back in the worker before the caller sees its error, as in-process; a worker
        // that died meanwhile has nothing left to roll back.
        await call({ op: 'end', tx, commit: false }).catch(() => undefined);
        throw err;
      }
      await call({ op: 'end', tx, commit: true });
      return result;
    },
    async exec(sql: string) {
      await writes.around(sql, () => call({ op: 'exec', sql }));
    },
    writeEpoch: writes.writeEpoch,
    async close() {
      if (dead) return;
      try {
        await call({ op: 'close' });
      } finally {
        closing = true;
        await worker.terminate();
      }
    },
    async dump(compression: 'none' | 'gzip' | 'auto' = 'none') {
      const reply = await call({ op: 'dump', compression });
      return new Blob([reply.data ?? new ArrayBuffer(0)]);
    },
  };
  workers.set(db, worker);
  return db;
}
