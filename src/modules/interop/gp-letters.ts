// Letters to the patient's own doctor (docs/interoperability.md, "Letters to the patient's own
// doctor"). The catalogue gives each category a level (`required`, `recommended`, `none`): the review
// desk's approval of a `required` category needs the patient's `gp_sharing` consent and a GP on the
// profile, or the doctor's written reason (409 `gp_consent_required` otherwise). With both, each
// approval of a `required` or `recommended` category queues one letter (unique per consultation;
// a renewal is a consultation of its own); the job `interop.gp-letters` sends it through the mail
// outbox as a PDF in the patient's language and English, unless the consent was withdrawn since
// (the letter is then withheld and never goes).
import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { fail, notFound } from '../../http/errors.ts';
import { isLocale, LOCALES, type Locale } from '../../lib/locales.ts';
import { gpLetterPdf, sellerFrom, type LetterPart } from '../../lib/pdf.ts';
import { enqueueMail, type MailTemplate } from '../../mail/outbox.ts';
import { getCategory, gpSharingFor, type GpSharingLevel } from '../questionnaires/index.ts';
import { LETTER_WORDS, letterMailText, type LetterWords } from './gp-letter-text.ts';
import {
  allLettersOf,
  claimQueuedLettersForScheduler,
  hasQueuedLettersForScheduler,
  countLetters,
  deleteAllLetters,
  doctorOf,
  insertLetterForClinician,
  insertSharingOverrideForClinician,
  letterOf,
  lettersOf,
  markLetterForScheduler,
  sharingOfConsultationForClinician,
  sharingStateOf,
  type GpDetails,
  type GpLetterRow,
  type SharingState,
} from './gp-letters.repository.ts';

/** What is missing for a `required` category: the consent, the GP's details, or both (null: nothing). */
export type SharingMissing = 'consent' | 'gp' | 'consent_and_gp';
const missingOf = (s: SharingState | null): SharingMissing | null => {
  const consent = s?.consent === true;
  const gp = s?.gp != null;
  return consent && gp ? null : !consent && !gp ? 'consent_and_gp' : !consent ? 'consent' : 'gp';
};

/** A letter goes for these levels when the patient consented; `none` is confidential care (no letter even with consent). */
const LETTER_LEVELS: readonly GpSharingLevel[] = ['required', 'recommended'];

/**
 * The approval's check, before anything is signed: a `required` category without the consent or a
 * GP is 409 `gp_consent_required` unless the doctor wrote a reason (recorded by `recordGpSharing`).
 */
export async function assertGpSharingForApproval(deps: Deps, v: { userId: string; category: string; overrideReason?: string }): Promise<void> {
  const level = gpSharingFor(v.category).level;
  if (level !== 'required' || v.overrideReason) return;
  const missing = missingOf(await sharingStateOf(deps.db, v.userId));
  if (missing) throw fail('gp_consent_required', { extra: { missing, gp_sharing: level } });
}

export interface ApprovedForLetter {
  userId: string;
  consultationId: string;
  prescriptionId: string;
  category: string;
  doctorId: string;
  treatmentId: string;
  treatmentName: string;
  dosage: string;
  instructions: string;
  at: Date;
  overrideReason?: string;
}

/** The content a letter is made from (sealed at rest), fixed at the approval. */
interface LetterContent {
  date: string;
  locale: Locale;
  service: string;
  patient: { first_name: string; last_name: string; date_of_birth: string | null; email: string };
  gp: GpDetails;
  category: { slug: string; title: Partial<Record<Locale, string>> };
  medicine: { treatment_id: string; name: Partial<Record<Locale, string>>; strength: string; instructions: string };
  monitoring: Partial<Record<Locale, string>>;
  prescriber: { first_name: string; last_name: string; license: string | null };
}

/**
 * Inside the approval's transaction: the doctor's reason for approving a `required` category
 * without the consent or a GP, and the letter when the patient consented and has a GP (once per
 * consultation, whatever calls it again).
 */
export async function recordGpSharing(deps: Deps, q: Queryable, a: ApprovedForLetter): Promise<void> {
  const sharing = gpSharingFor(a.category);
  const state = await sharingStateOf(q, a.userId);
  const missing = missingOf(state);
  if (sharing.level === 'required' && missing) {
    // The pre-check let this through only with a reason; a consent withdrawn in between still needs one.
    if (!a.overrideReason) throw fail('gp_consent_required', { extra: { missing, gp_sharing: sharing.level } });
    await insertSharingOverrideForClinician(q, { consultation_id: a.consultationId, user_id: a.userId, doctor_id: a.doctorId, missing, reason: a.overrideReason, at: a.at });
  }
  if (!state || missing || !state.gp || !LETTER_LEVELS.includes(sharing.level)) return;
  const locale: Locale = isLocale(state.locale) ? state.locale : 'en';
  const langs: Locale[] = locale === 'en' ? ['en'] : [locale, 'en'];
  const pick = (t: Record<Locale, string> | undefined) => Object.fromEntries(langs.map((l) => [l, t?.[l] ?? t?.en ?? ''])) as Partial<Record<Locale, string>>;
  const category = getCategory(a.category);
  const treatment = category?.treatments.find((t) => t.treatment_id === a.treatmentId);
  const doctor = await doctorOf(q, a.doctorId);
  const content: LetterContent = {
    date: a.at.toISOString().slice(0, 10),
    locale,
    service: sellerFrom(deps.config).name,
    patient: { first_name: state.first_name, last_name: state.last_name, date_of_birth: state.date_of_birth, email: state.email },
    gp: state.gp,
    category: { slug: a.category, title: pick(category?.title) },
    medicine: { treatment_id: a.treatmentId, name: treatment ? pick(treatment.names) : { en: a.treatmentName }, strength: a.dosage, instructions: a.instructions },
    monitoring: pick(sharing.monitoring),
    prescriber: doctor ?? { first_name: '', last_name: '', license: null },
  };
  await insertLetterForClinician(q, { user_id: a.userId, consultation_id: a.consultationId, prescription_id: a.prescriptionId, recipient_email: state.gp.email, locale, content, at: a.at });
}

const asContent = (v: unknown): LetterContent => v as LetterContent;
const patientName = (c: LetterContent) => `${c.patient.first_name} ${c.patient.last_name}`.trim() || c.patient.email;

function part(c: LetterContent, lang: Locale, w: LetterWords): LetterPart {
  const at = (t: Partial<Record<Locale, string>>) => t[lang] ?? t.en ?? '';
  const prescriber = `${c.prescriber.first_name} ${c.prescriber.last_name}`.trim() || w.notRecorded;
  return {
    lang,
    title: w.title,
    opening: w.opening(patientName(c), c.service),
    sections: [
      { heading: w.patient, lines: [[w.name, patientName(c)], [w.dateOfBirth, c.patient.date_of_birth ?? w.notRecorded], [w.email, c.patient.email]] },
      {
        heading: w.prescribed,
        lines: [
          [w.medicine, at(c.medicine.name)],
          [w.strength, c.medicine.strength || w.notRecorded],
          [w.dosage, c.medicine.instructions || w.notRecorded],
          [w.reason, at(c.category.title)],
        ],
      },
      { heading: w.monitoring, lines: [[null, at(c.monitoring)]] },
      { heading: w.prescriber, lines: [[w.name, prescriber], [w.licence, c.prescriber.license ?? w.notRecorded], [w.date, c.date]] },
    ],
    closing: w.closing,
  };
}

/** The letter as a PDF: the patient's language first, then English. */
function letterPdf(deps: Deps, id: string, content: unknown): Promise<Buffer> {
  const c = asContent(content);
  const langs: Locale[] = c.locale === 'en' ? ['en'] : [c.locale, 'en'];
  return gpLetterPdf({
    id,
    seller: sellerFrom(deps.config),
    recipient: [c.gp.name, c.gp.practice, ...c.gp.address.split(/\r?\n/), c.gp.email].map((l) => l.trim()).filter(Boolean),
    parts: langs.map((l) => part(c, l, LETTER_WORDS[l])),
  });
}

/** The covering mail (no health details in the text: they are in the attached letter). */
const gpLetterMail: MailTemplate<{ patient: string; locale: Locale }> = {
  name: 'gp_letter',
  ...(Object.fromEntries(LOCALES.map((l) => [l, (v: { patient: string; locale: Locale }) => letterMailText(v.locale === 'en' ? [LETTER_WORDS.en] : [LETTER_WORDS[v.locale], LETTER_WORDS.en], v.patient)])) as Record<
    Locale,
    (v: { patient: string; locale: Locale }) => { subject: string; text: string }
  >),
};

const BATCH = 20;

/**
 * Job `interop.gp-letters`: each queued letter goes to the GP through the outbox, unless the patient
 * withdrew the consent (or removed the GP) since the approval: then it is withheld. Each letter is
 * claimed under a row lock and marked in the same transaction as its mail, so a second run (or a
 * second process) never sends it again.
 */
export async function sendQueuedGpLetters(deps: Deps): Promise<number> {
  if (!(await hasQueuedLettersForScheduler(deps.db))) return 0;
  let sent = 0;
  for (;;) {
    const n = await deps.db.tx(async (q) => {
      const letters = await claimQueuedLettersForScheduler(q, BATCH);
      for (const l of letters) {
        const state = await sharingStateOf(q, l.user_id);
        if (!state?.consent) {
          await markLetterForScheduler(q, l.id, { status: 'withheld', withheld_reason: 'consent_withdrawn' });
          continue;
        }
        // The address at the approval: a GP changed since would receive a letter about a decision
        // made when another doctor was named; a GP removed stops it.
        if (!state.gp) {
          await markLetterForScheduler(q, l.id, { status: 'withheld', withheld_reason: 'no_gp' });
          continue;
        }
        const c = asContent(l.content);
        const pdf = await letterPdf(deps, l.id, c);
        await enqueueMail(q, l.recipient_email, gpLetterMail, c.locale, { patient: patientName(c), locale: c.locale }, [
          { filename: `letter-${l.id}.pdf`, content_type: 'application/pdf', content: pdf.toString('base64'), encoding: 'base64' },
        ]);
        await markLetterForScheduler(q, l.id, { status: 'sent', sent_at: deps.clock.now(), recipient_email: l.recipient_email });
        sent++;
      }
      return letters.length;
    });
    if (n < BATCH) return sent;
  }
}

export interface GpLetterOut {
  id: string;
  consultation_id: string;
  status: 'queued' | 'sent';
  created_at: string;
  sent_at: string | null;
  recipient: string;
  url: string;
}

const out = (deps: Deps, l: GpLetterRow): GpLetterOut => ({
  id: l.id,
  consultation_id: l.consultation_id,
  status: l.status === 'sent' ? 'sent' : 'queued',
  created_at: l.created_at.toISOString(),
  sent_at: l.sent_at?.toISOString() ?? null,
  recipient: l.recipient_email,
  url: `${deps.config.PUBLIC_BASE_URL}/v1/users/me/gp-letters/${l.id}/pdf/`,
});

/** The patient's letters (queued and sent; a withheld one never went), newest first. */
export async function pageGpLetters(deps: Deps, userId: string, limit: number, offset: number) {
  const [count, rows] = await Promise.all([countLetters(deps.reader, userId), lettersOf(deps.reader, userId, limit, offset)]);
  return { count, results: rows.map((l) => out(deps, l)) };
}

/** One letter's PDF for its patient; another account's id is the same 404 as a missing one. */
export async function gpLetterPdfForUser(deps: Deps, userId: string, id: string): Promise<Buffer> {
  const l = await letterOf(deps.reader, userId, id);
  if (!l) throw notFound();
  return letterPdf(deps, l.id, l.content);
}

/** The export: every letter with its content (withheld ones too: they were written about the patient). */
export async function gpLettersForExport(deps: Deps, q: Queryable, userId: string) {
  const rows = await allLettersOf(q, userId);
  return rows.map((l) => ({ ...out(deps, l), status: l.status, withheld_reason: l.withheld_reason, content: l.content }));
}

/** The export's zip: each letter's PDF. */
export async function gpLetterFilesForExport(deps: Deps, q: Queryable, userId: string): Promise<{ id: string; name: string; data: Buffer }[]> {
  const rows = (await allLettersOf(q, userId)).filter((l) => l.status !== 'withheld');
  return Promise.all(rows.map(async (l) => ({ id: l.id, name: `letter-${l.id}.pdf`, data: await letterPdf(deps, l.id, l.content) })));
}

/** Erasure: the account's letters are deleted (the doctors' override reasons stay with the prescribing record). */
export async function eraseAccountGpLetters(q: Queryable, userId: string): Promise<void> {
  await deleteAllLetters(q, userId);
}

/** The review desk's view: the category's level, the patient's consent and GP, the letter and any override. */
export async function gpSharingForDesk(deps: Deps, v: { userId: string; category: string; consultationId: string }) {
  const state = await sharingStateOf(deps.reader, v.userId);
  const { letter, override } = await sharingOfConsultationForClinician(deps.reader, v.consultationId);
  return {
    level: gpSharingFor(v.category).level,
    consent: state?.consent === true,
    gp_on_file: state?.gp != null,
    letter: letter ? { id: letter.id, status: letter.status as 'queued' | 'sent' | 'withheld', sent_at: letter.sent_at?.toISOString() ?? null, withheld_reason: letter.withheld_reason } : null,
    override_reason: override?.reason ?? null,
  };
}
