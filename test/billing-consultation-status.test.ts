// The consultation status table (src/modules/consultations/status.ts): the one place of the rules.
import { describe, expect, it } from 'vitest';
import { CONSULTATION_STATUSES, TRANSITIONS, assertTransition, canTransition } from '../src/modules/consultations/status.ts';

describe('consultation status transitions', () => {
  it('allows exactly the documented moves', () => {
    const allowed = CONSULTATION_STATUSES.flatMap((from) => CONSULTATION_STATUSES.filter((to) => canTransition(from, to)).map((to) => `${from}->${to}`));
    expect(allowed.sort()).toEqual(
      [
        'pending_review->approved',
        'pending_review->rejected',
        'pending_review->needs_information',
        'pending_review->cancelled',
        'pending_review->refunded',
        'needs_information->pending_review',
        'needs_information->approved',
        'needs_information->rejected',
        'needs_information->cancelled',
        'needs_information->refunded',
        'rejected->refunded',
        // The doctor asks for a call (docs/appointments.md), then decides after it.
        'pending_review->awaiting_call',
        'needs_information->awaiting_call',
        'awaiting_call->approved',
        'awaiting_call->rejected',
        'awaiting_call->needs_information',
        'awaiting_call->cancelled',
        'awaiting_call->refunded',
      ].sort(),
    );
  });

  it('final states have no way out; unknown states none either', () => {
    for (const s of ['approved', 'cancelled', 'refunded'] as const) expect(TRANSITIONS[s]).toEqual([]);
    expect(canTransition('bogus', 'approved')).toBe(false);
  });

  it('a forbidden move is a 409 invalid_status_transition', () => {
    try {
      assertTransition('approved', 'rejected');
      expect.unreachable();
    } catch (err: any) {
      expect(err.status).toBe(409);
      expect(err.body.code).toBe('invalid_status_transition');
    }
  });
});
