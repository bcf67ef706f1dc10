// The bench's data, written with set-based SQL straight into a database migrated by the service's
// own migrations (src/db/migrate.ts), so that a 100,000-consultation account takes seconds, not the
// hours the HTTP flows would. Columns are those of src/db/migrations (0001_accounts, 0200_billing,
// 0201_billing_extras); a migration that adds a NOT NULL column without a default fails here loudly.
//
//   10,000 verified patient accounts bench-<n>@example.org, all with the password BENCH_PASSWORD
//   one doctor (approves every consultation and signs every prescription)
//   bench-1: 1,000 approved consultations, each with a succeeded payment and a prescription
//   bench-2: 100,000 of the same (the growth account: its pages look exactly like bench-1's, only
//            the account is 100x larger; its payments sum past 2^31 cents, as money sums may)
//   bench-3 and every other account: 2 consultations (same shape); bench-3 signs in under load
//
// The consultations' answers (form_snapshot) are stored sealed with the service's data-encryption
// keys (form_snapshot_enc; src/lib/sealed.ts), as a database is once encryption at rest is in place.
// Seeded in plaintext, the service's first start would seal all 121,000 rows itself (src/runtime.ts:
// over a minute here) and leave their dead row versions and WAL to vacuum and checkpoint during the
// measured runs: that, not the service's request path, was most of the regression measured after
// encryption at rest landed.
//
// Prices are the catalogue's (semaglutide, 249.00 EUR one-off), so money sums are realistic.
import type { Db } from '../src/db/index.ts';
import { hashPassword } from '../src/modules/accounts/passwords.ts';
import { encrypt } from '../src/lib/crypto.ts';
import type { KeyRing } from '../src/lib/keys.ts';

export const BENCH_PASSWORD = 'bench-Tangerine-Orbit-42';
export const ACCOUNTS = 10_000;
export const SMALL = { email: 'bench-1@example.org', consultations: 1_000 };
export const LARGE = { email: 'bench-2@example.org', consultations: 100_000 };
export const SIGNIN = { email: 'bench-3@example.org' };
/** Consultations of each of the other accounts. */
export const OTHERS_EACH = 2;

const FORM = JSON.stringify([
  { step_id: 1, question_key: 'height_cm', value: 178 },
  { step_id: 1, question_key: 'weight_kg', value: 96 },
  { step_id: 2, question_key: 'takes_other_medication', value: false },
]);

/** Distinct sealed copies of FORM (each its own IV), used in turn: as costly to open as one sealed per row. */
const SEALED_COPIES = 1_000;

/** `perAccount` approved consultations for each account matched by `where` (users u), one every `every` back. */
async function consultations(db: Db, doctorId: string, sealed: string[], where: string, params: unknown[], perAccount: number, every: string): Promise<void> {
  await db.query(
    `insert into consultations (user_id, doctor_id, category, status, origin, plan, supply_days, decision_reason,
       treatment_id, dosage, form_snapshot, form_snapshot_enc, created_at, updated_at, decided_at)
     select u.id, $1, 'weight_loss', 'approved', 'checkout', 'one_off', 28, '',
       'semaglutide', '0.25 mg', null, ($2::text[])[1 + g % ${SEALED_COPIES}], t, t + interval '2 hours', t + interval '2 hours'
       from users u cross join lateral (select g, now() - g * $3::interval as t from generate_series(1, $4::int) g) s
      where ${where}`,
    [doctorId, sealed, every, perAccount, ...params],
  );
}

/** A succeeded payment and a prescription for every consultation. */
async function paymentsAndPrescriptions(db: Db): Promise<void> {
  await db.query(
    `insert into payments (user_id, consultation_id, provider, provider_payment_id, provider_checkout_id, amount_cents,
       status, description, captured_at, invoice_number, created_at, updated_at)
     select c.user_id, c.id, 'sandbox', 'bench_pi_' || c.id, 'bench_cs_' || c.id, 24900,
       'succeeded', 'Semaglutide pen 0.25 mg', c.created_at, nextval('invoice_number_seq'), c.created_at, c.created_at
       from consultations c order by c.created_at`,
  );
  await db.query(
    `insert into prescriptions (user_id, consultation_id, doctor_id, category, treatment_id, treatment_name, dosage,
       instructions, supply_days, issued_at, valid_until, created_at)
     select c.user_id, c.id, c.doctor_id, c.category, c.treatment_id, 'Semaglutide pen', c.dosage,
       'Inject once a week, same day each week.', 28, c.decided_at, c.decided_at + interval '182 days', c.decided_at
       from consultations c`,
  );
}

/** Seeds a freshly migrated database, health data sealed with `dataKeys` (the service's DATA_ENCRYPTION_KEYS); returns the row counts written. */
export async function seed(db: Db, dataKeys: KeyRing): Promise<Record<string, number>> {
  const sealed = Array.from({ length: SEALED_COPIES }, () => encrypt(dataKeys, FORM));
  const hash = await hashPassword(BENCH_PASSWORD);
  await db.query(
    `insert into users (email, password_hash, email_verified_at, first_name, last_name, locale, country_of_residence, referral_code)
     select 'bench-' || g || '@example.org', $1, now(), 'Bench', 'Patient ' || g, 'en', 'DEU', 'BENCH' || lpad(g::text, 6, '0')
       from generate_series(1, $2::int) g`,
    [hash, ACCOUNTS],
  );
  const [doctor] = await db.query<{ id: string }>(
    `insert into users (email, password_hash, email_verified_at, is_doctor, first_name, last_name, doctor_license_number, referral_code)
     values ('bench-doctor@example.org', $1, now(), true, 'Dana', 'Okafor', 'DE-LIC-0001', 'BENCHDOC') returning id`,
    [hash],
  );
  const idOf = async (email: string) => {
    const [row] = await db.query<{ id: string }>('select id from users where email = $1', [email]);
    if (!row) throw new Error(`seed: ${email} missing`);
    return row.id;
  };
  // Everyone else has a short history, so that consultations, payments and prescriptions hold
  // rows of ~10,000 owners: with two owners only, the planner's statistics would call any owner
  // half the table and choose sequential scans no real database would see.
  await consultations(db, doctor!.id, sealed, 'u.email like $5 and u.email not in ($6, $7) and not u.is_doctor', ['bench-%@example.org', SMALL.email, LARGE.email], OTHERS_EACH, '97 days');
  await consultations(db, doctor!.id, sealed, 'u.id = $5', [await idOf(SMALL.email)], SMALL.consultations, '37 minutes');
  await consultations(db, doctor!.id, sealed, 'u.id = $5', [await idOf(LARGE.email)], LARGE.consultations, '37 minutes');
  await paymentsAndPrescriptions(db);
  // Statistics and visibility map as autovacuum would leave them on a database that grew to this
  // size (without it every index-only scan would fetch each heap row).
  await db.exec('vacuum analyze');
  // Flush the seed's ~100 MB of writes now: otherwise the checkpoint they trigger spreads its I/O
  // over the next minutes, into the measured runs (it showed as 20-60 ms tails at half of peak).
  await db.exec('checkpoint');
  const counts: Record<string, number> = {};
  for (const table of ['users', 'consultations', 'payments', 'prescriptions']) {
    const [row] = await db.query<{ n: number }>(`select count(*)::int as n from ${table}`);
    counts[table] = row?.n ?? 0;
  }
  return counts;
}
