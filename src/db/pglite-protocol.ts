// Messages between the server's thread (src/db/pglite-worker.ts) and the embedded database's
// worker thread (src/db/pglite-worker-entry.ts). Everything here crosses by structured clone.

/** What the worker is started with (workerData); loadDataDir is transferred, not copied. */
export interface WorkerStart {
  dataDir?: string;
  loadDataDir?: ArrayBuffer;
}

export type WorkerRequest =
  | { id: number; op: 'query'; sql: string; params: unknown[]; tx?: number }
  | { id: number; op: 'exec'; sql: string }
  | { id: number; op: 'begin' }
  | { id: number; op: 'end'; tx: number; commit: boolean }
  | { id: number; op: 'dump'; compression: 'none' | 'gzip' | 'auto' }
  | { id: number; op: 'close' };

/** A failure as plain data: scrubDbError has already run, so fields hold code, constraint, statement... */
export interface WorkerError {
  name: string;
  message: string;
  fields: Record<string, string | number | boolean>;
}

/** The answer to request `id` (id 0: the worker's start-up, ready or failed). */
export type WorkerReply =
  | { id: number; ok: true; rows?: unknown[]; rowCount?: number; tx?: number; data?: ArrayBuffer }
  | { id: number; ok: false; error: WorkerError };
