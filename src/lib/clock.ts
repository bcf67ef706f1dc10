// The service's notion of now. Production: the system clock. With the sandbox payment provider, a
// back-office test clock can move it forward (kept in app_settings so it survives a restart).
import type { Db } from '../db/index.ts';

export interface Clock {
  now(): Date;
  offsetMs(): number;
  /** Moves now forward by ms (sandbox test clock only); persists the offset. */
  advance(ms: number): Promise<void>;
}

export async function createClock(db: Db): Promise<Clock> {
  const [row] = await db.query<{ value: any }>("select value from app_settings where key = 'clock_offset_ms'");
  let offset = row ? Number(row.value) : 0;
  return {
    now: () => new Date(Date.now() + offset),
    offsetMs: () => offset,
    async advance(ms: number) {
      offset += ms;
      await db.query(
        "insert into app_settings (key, value, updated_at) values ('clock_offset_ms', $1::jsonb, now()) on conflict (key) do update set value = excluded.value, updated_at = now()",
        [JSON.stringify(offset)],
      );
    },
  };
}
