// The service's notion of now. Production: the system clock. With the sandbox payment provider, a
// back-office test clock can move it forward (kept in app_settings so it survives a restart).
import type { Db } from '../db/index.ts';
import { readClockOffset, writeClockOffset } from './clock.repository.ts';

export interface Clock {
  now(): Date;
  offsetMs(): number;
  /** Moves now forward by ms (sandbox test clock only); persists the offset. */
  advance(ms: number): Promise<void>;
}

export async function createClock(db: Db): Promise<Clock> {
  let offset = await readClockOffset(db);
  return {
    now: () => new Date(Date.now() + offset),
    offsetMs: () => offset,
    async advance(ms: number) {
      offset += ms;
      await writeClockOffset(db, offset);
    },
  };
}
