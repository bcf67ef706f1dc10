// The embedded database belongs to one process at a time. The owner writes its pid to
// $DATA_DIR/pglite.lock; another process refuses to open the files while that pid is alive.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export class DataDirLockedError extends Error {}

/** The `code` of a Node system error (ENOENT, EPERM...), else undefined. */
const errnoCode = (err: unknown): unknown => (typeof err === 'object' && err !== null && 'code' in err ? err.code : undefined);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errnoCode(err) === 'EPERM';
  }
}

export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, 'pglite.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, String(process.pid), { flag: 'wx' });
      return () => rmSync(path, { force: true });
    } catch (err) {
      if (errnoCode(err) !== 'EEXIST') throw err;
      const pid = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
        throw new DataDirLockedError(
          `The embedded database in ${dataDir} is in use by process ${pid} (a running server?). Stop it first, or point DATA_DIR elsewhere.`,
        );
      }
      rmSync(path, { force: true }); // stale lock from a process that died
    }
  }
  throw new DataDirLockedError(`Could not lock ${dataDir}`);
}
