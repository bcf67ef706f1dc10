// The plan status machine (subscriptions/status.ts) and the one BMI formula (lib/bmi.ts): pure.
import { describe, expect, test } from 'vitest';
import { bmi, roundBmi } from '../src/lib/bmi.ts';
import { assertPlanTransition, canSetCancelAtPeriodEnd, canTransitionPlan, PLAN_STATUSES } from '../src/modules/subscriptions/status.ts';

describe('plan status machine', () => {
  test('canceled is final; a paused plan cannot pause again; renewals and retries keep their status', () => {
    for (const to of PLAN_STATUSES) expect(canTransitionPlan('canceled', to), `canceled -> ${to}`).toBe(false);
    expect(canTransitionPlan('paused', 'paused')).toBe(false);
    expect(canTransitionPlan('active', 'active')).toBe(true);
    expect(canTransitionPlan('past_due', 'past_due')).toBe(true);
    expect(canTransitionPlan('paused', 'active')).toBe(true);
    expect(canTransitionPlan('unknown', 'active')).toBe(false);
  });

  test('a forbidden move is a 409 invalid_status_transition', () => {
    let thrown: unknown = null;
    try {
      assertPlanTransition('canceled', 'active');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toMatchObject({ status: 409, body: { code: 'invalid_status_transition', detail: expect.any(String) } });
    expect(() => assertPlanTransition('active', 'canceled')).not.toThrow();
  });

  test('cancel-at-period-end only on a live plan', () => {
    expect(['active', 'past_due', 'paused', 'canceled'].map(canSetCancelAtPeriodEnd)).toEqual([true, true, true, false]);
  });
});

describe('bmi', () => {
  test('exact at the 27 and 30 bounds, null for missing or non-positive input, one decimal for display', () => {
    expect(bmi(170, 78.03)).toBeCloseTo(27, 10);
    expect(bmi(100, 30)).toBe(30);
    expect(bmi(0, 70)).toBeNull();
    expect(bmi('170', 70)).toBeNull();
    expect(bmi(180, undefined)).toBeNull();
    expect(roundBmi(bmi(180, 81) ?? 0)).toBe(25);
  });
});
