// Emergency contraception is sold for delivery only when it can arrive well inside its window, which
// depends on the day and hour (carrier cut-off, weekends, holidays). Tests that buy it for other
// reasons move their app clock to a working-day morning first, so they do not depend on when they run.
import { DELIVERY, zonedInstant } from '../../src/modules/questionnaires/ec-delivery.ts';
import type { TestContext } from './harness.ts';

const DAY = 86_400_000;

/** Moves the context's clock forward to the next Tuesday, 09:00 at the dispatching pharmacy, that is not a public holiday. */
export async function toWorkingDayMorning(ctx: TestContext): Promise<void> {
  let day = new Date(ctx.deps.clock.now().getTime() + DAY).toISOString().slice(0, 10);
  const holiday = (d: string) => DELIVERY.dispatch.public_holidays.includes(d);
  const next = (d: string) => new Date(Date.parse(`${d}T00:00:00Z`) + DAY).toISOString().slice(0, 10);
  while (new Date(`${day}T00:00:00Z`).getUTCDay() !== 2 || holiday(day) || holiday(next(day))) day = next(day);
  await ctx.deps.clock.advance(zonedInstant(day, '09:00', DELIVERY.dispatch.time_zone).getTime() - ctx.deps.clock.now().getTime());
}
