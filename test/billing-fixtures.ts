// Shared set-up for the billing, clinician, back-office and Stripe tests.
import { randomUUID } from 'node:crypto';
import { call, grantGpSharing, seedPatient, type Patient, type TestContext, firstRow } from './support/harness.ts';
import { getCategory } from '../src/modules/questionnaires/catalogue.ts';
import { issueTokenPair } from '../src/modules/accounts/tokens.ts';
import { expect } from 'vitest';

export async function readyPatient(ctx: TestContext, category = 'weight_loss', outcome = 'eligible', extra: Record<string, unknown> = {}): Promise<Patient> {
  const { gp_sharing: sharing = true, ...columns } = extra;
  const p = await seedPatient(ctx, { date_of_birth: '1985-04-12', country_of_residence: 'DEU', gender: '0', locale: 'de', ...columns });
  // A patient ready for treatment has named their own doctor and consents to sharing (weight loss
  // cannot be approved without: docs/interoperability.md); `gp_sharing: false` leaves both out.
  if (sharing !== false) await grantGpSharing(ctx, p.id);
  await addSubmission(ctx, p.id, category, outcome);
  return p;
}

/** The engine's allowed treatments of a seeded result: every treatment of the category when payable. */
const allowedBy = (category: string, outcome: string) => (['eligible', 'held_for_review'].includes(outcome) ? (getCategory(category)?.treatments ?? []).map((t) => t.treatment_id) : []);

export async function addSubmission(ctx: TestContext, userId: string, category: string, outcome = 'eligible') {
  const answers = [
    { step_id: 1, question_key: 'height_cm', value: 180 },
    { step_id: 1, question_key: 'weight_kg', value: 105 },
    { step_id: 2, question_key: 'conditions', values: { diabetes: false } },
  ];
  const row = firstRow(await ctx.db.query(
    'insert into questionnaire_submissions (user_id, category, version_id, answers, outcome, result) values ($1, $2, $3, $4::jsonb, $5, $6::jsonb) returning id',
    [userId, category, randomUUID(), JSON.stringify(answers), outcome, JSON.stringify({ bmi: 32.4, reasons: [], treatments: allowedBy(category, outcome) })],
  ));
  return row.id as string;
}

export async function staff(ctx: TestContext, role: 'doctor' | 'backoffice_admin'): Promise<Patient> {
  try {
    const { newStaff } = await import('./support/harness.ts');
    return await newStaff(ctx, role);
  } catch {
    return seedPatient(ctx, role === 'doctor' ? { is_doctor: true, doctor_license_number: 'LANR-123456789' } : { is_backoffice_admin: true });
  }
}

/** Checkout + sandbox Pay; returns the session id and the finalised session view. */
export async function paySandbox(ctx: TestContext, p: Patient, body: Record<string, unknown> = { category: 'weight_loss', plan: 'subscription' }, card?: string) {
  const co = await call(ctx, 'POST', '/v1/users/checkout/', { token: p.access, json: body });
  if (co.status !== 200) throw new Error(`checkout ${co.status} ${co.text}`);
  const path = new URL(co.body.checkout_url).pathname;
  const pay = await call(ctx, 'POST', `${path}pay/`, { payload: card ? `card_number=${card}` : '', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  if (pay.status !== 303) throw new Error(`pay ${pay.status} ${pay.text}`);
  const s = await call(ctx, 'GET', `/v1/users/sandbox/session/${co.body.session_id}/`, { token: p.access });
  return { checkout: co.body, session: s.body, redirect: pay.headers.location as string };
}

/** Answers to the weight-loss renewal screen that raise nothing: the version's safety step, then the red flags and contraindications. */
export const WEIGHT_LOSS_RENEWAL_SAFETY = [
  { question_key: 'current_weight_kg', values: { value: 96 } as Record<string, unknown> },
  { question_key: 'significant_side_effects', values: { value: 0 } as Record<string, unknown> },
  { question_key: 'new_medication', values: { value: 0 } as Record<string, unknown> },
  { question_key: 'urgent_symptoms', values: { none: 1 } as Record<string, unknown> },
  { question_key: 'glp1_allergy', values: { value: 0 } as Record<string, unknown> },
  { question_key: 'pancreatitis_history', values: { value: 0 } as Record<string, unknown> },
  { question_key: 'other_glp1', values: { value: 0 } as Record<string, unknown> },
  { question_key: 'mtc_or_men2', values: { value: 0 } as Record<string, unknown> },
  { question_key: 'insulin_or_sulfonylurea', values: { value: 0 } as Record<string, unknown> },
  // weight_loss version 3: the eating-disorder screen at each renewal (S7, S7b).
  { question_key: 'eating_disorder_signs', values: { value: 0 } as Record<string, unknown> },
];

/**
 * A doctor's approval of the renewal of a plan's current period (what the recurring charge waits
 * for), written straight to the database: `decidedAt` defaults to a day before the period ends.
 */
export async function approveRenewalOfPeriod(ctx: TestContext, subscriptionId: string, decidedAt?: Date) {
  // The period end is copied inside SQL: a round trip through a JS Date would drop PostgreSQL's microseconds.
  await ctx.db.query(
    `insert into consultations (user_id, category, plan, status, origin, subscription_id, renewal_period_end, treatment_id, dosage, supply_days, patient_choice_status, decided_at)
     select user_id, category, 'subscription', 'approved', 'renewal', id, current_period_end, treatment_id, dosage, cycle_days, 'confirmed',
            coalesce($2::timestamptz, current_period_end - interval '1 day')
       from subscriptions where id = $1`,
    [subscriptionId, decidedAt ?? null],
  );
}

// Tests that move the sandbox test clock: it also ages access tokens (15 minutes), so each call
// signs in afresh.
/** An access token for the account, minted now. */
export const freshToken = async (ctx: TestContext, p: Patient) => (await issueTokenPair(ctx.deps, ctx.db, p.id)).access;
/** A call as the patient (or staff) with a token minted now. */
export const callAsFresh = async (ctx: TestContext, p: Patient, method: string, url: string, json?: unknown) => call(ctx, method, url, { token: await freshToken(ctx, p), json });
/** Moves the test clock through the back office (which runs the due jobs). */
export async function advanceTestClock(ctx: TestContext, admin: Patient, days: number) {
  const r = await callAsFresh(ctx, admin, 'POST', '/v1/backoffice/test-clock/advance/', { days });
  expect(r.status).toBe(200);
  return r;
}
