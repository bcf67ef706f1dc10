// The prescribing catalogue: per category, what the renewal screen asks on top of the version's
// safety screen (and the rules over those answers), and the titration facts of the treatments
// (the missed-dose window of each SmPC). Files: catalogue/prescribing/<slug>.json, validated at
// start-up (an invalid file stops the process). Format and rules: docs/renewals.md.
//
// Kept apart from the versioned questionnaire files (catalogue/categories/<slug>/v<n>.json) so
// that renewal screens and titration facts can change without publishing a new questionnaire.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { LOCALES, type Locale } from '../../lib/locales.ts';
import { CATEGORY_SLUGS, RuleSchema, StepSchema, checkStrengthLimits, currentVersion, getCategory, type Condition, type LocalisedText, type Rule, type Step } from './catalogue.ts';

const TitrationSchema = z
  .object({
    /** A weekly dose may be taken up to this many days late; later it is skipped (SmPC). */
    missed_dose_days: z.number().int().min(0).optional(),
    /** Strengths a first supply may have (a medicine without a ladder that starts low, e.g. dapoxetine 30 mg [P1]). */
    first_supply_strengths: z.array(z.string()).min(1).optional(),
    source: z.string().min(1),
  })
  .strict();

/**
 * The prescription's instructions: each treatment's posology (one text for every strength, or one per
 * strength; `{dosage}` is replaced by the prescribed strength) and the lines a fired rule adds (an
 * interaction's dose limit, a caution the patient must act on), each with its source.
 */
const InstructionsSchema = z
  .object({
    posology: z.record(
      z.string(),
      z
        .object({ default: z.string().min(20).optional(), strengths: z.record(z.string(), z.string().min(20)).optional(), source: z.string().min(1) })
        .strict()
        .refine((x) => x.default !== undefined || x.strengths !== undefined, 'a posology needs a default text or one per strength'),
    ),
    rules: z.record(z.string().regex(/^[A-Z0-9_]+$/), z.object({ treatments: z.array(z.string()).min(1), text: z.string().min(20), source: z.string().min(1) }).strict()),
  })
  .strict();
export type PrescriptionInstructionsCatalogue = z.infer<typeof InstructionsSchema>;

/** The GP letter levels (docs/interoperability.md, "Letters to the patient's own doctor"). */
export const GP_SHARING_LEVELS = ['required', 'recommended', 'none'] as const;
export type GpSharingLevel = (typeof GP_SHARING_LEVELS)[number];

/**
 * Whether the patient's own doctor hears of an approval in this category: `required` (no approval
 * without the patient's `gp_sharing` consent and a GP on the profile, unless the doctor writes why),
 * `recommended` (a letter goes when the patient consented), `none` (no letter, even with consent:
 * confidential sexual health care). `monitoring` is printed on the letter in the patient's language
 * and English; `reason` and `source` say why the level was chosen.
 */
const GpSharingSchema = z
  .object({
    level: z.enum(GP_SHARING_LEVELS),
    reason: z.string().min(20),
    source: z.string().min(1),
    monitoring: z.object(Object.fromEntries(LOCALES.map((l) => [l, z.string().min(1)])) as Record<Locale, z.ZodString>).strict(),
  })
  .strict();
export interface GpSharing {
  level: GpSharingLevel;
  reason: string;
  source: string;
  monitoring: LocalisedText;
}

const FileSchema = z
  .object({
    format: z.literal(1),
    category: z.enum(CATEGORY_SLUGS),
    gp_sharing: GpSharingSchema,
    titration: z.record(z.string(), TitrationSchema).default({}),
    renewal: z.object({ steps: z.array(StepSchema), rules: z.array(RuleSchema) }).strict().default({ steps: [], rules: [] }),
    /**
     * Absolute contraindications: rule codes (of any version of the category, or of the renewal
     * rules) that no override lifts, each with its source. The approval answers 409
     * `absolute_contraindication` (docs/clinician.md). Other exclusions are relative: a doctor may
     * lift them with a written reason.
     */
    absolute: z.record(z.string().regex(/^[A-Z0-9_]+$/), z.string().min(1)).default({}),
    instructions: InstructionsSchema,
  })
  .strict();
export type PrescribingFile = z.infer<typeof FileSchema>;

export interface PrescribingCategory {
  gp_sharing: GpSharing;
  titration: Record<string, { missed_dose_days?: number; first_supply_strengths?: string[]; source: string }>;
  renewal: { steps: Step[]; rules: Rule[] };
  absolute: Record<string, string>;
  instructions: PrescriptionInstructionsCatalogue;
}

/**
 * The instructions' coverage: every treatment and strength has a posology, `{dosage}` only in a text
 * shared by several strengths, every instruction rule names a rule of the category and its
 * treatments, and every strength limit (an interaction's or a starting dose's) has its instruction
 * naming the strengths it allows: the dose limit is printed, not only enforced.
 */
export function checkInstructions(instructions: PrescriptionInstructionsCatalogue, treatments: { treatment_id: string; strengths: string[] }[], rules: Rule[]): string[] {
  const problems: string[] = [];
  const known = new Map(treatments.map((t) => [t.treatment_id, t.strengths]));
  for (const t of treatments) {
    const p = instructions.posology[t.treatment_id];
    if (!p) {
      problems.push(`instructions: no posology for ${t.treatment_id}`);
      continue;
    }
    for (const s of t.strengths) if (!p.strengths?.[s] && !p.default) problems.push(`instructions: no posology for ${t.treatment_id} ${s}`);
  }
  for (const [id, p] of Object.entries(instructions.posology)) {
    if (!known.has(id)) problems.push(`instructions: unknown treatment ${id}`);
    for (const s of Object.keys(p.strengths ?? {})) if (!known.get(id)?.includes(s)) problems.push(`instructions: ${id} has no strength ${s}`);
    for (const text of Object.values(p.strengths ?? {})) if (text.includes('{dosage}')) problems.push(`instructions: ${id}: a text per strength names its strength itself`);
  }
  const byCode = new Map(rules.map((r) => [r.code, r]));
  for (const [code, line] of Object.entries(instructions.rules)) {
    if (!byCode.has(code)) problems.push(`instructions: unknown rule ${code}`);
    for (const t of line.treatments) if (!known.has(t)) problems.push(`instructions: ${code}: unknown treatment ${t}`);
  }
  for (const r of rules.filter((x) => x.kind === 'limit_strengths')) {
    const line = instructions.rules[r.code];
    if (!line) problems.push(`instructions: the strength limit ${r.code} has no instruction`);
    else for (const s of r.strengths ?? []) if (!line.text.includes(s)) problems.push(`instructions: ${r.code} does not name ${s}`);
  }
  return problems;
}

export const PRESCRIBING_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../../catalogue/prescribing');

/** Cross-checks one file: known treatments, unique keys, rules over its own or the safety screen's questions. */
export function checkPrescribingFile(file: PrescribingFile, safetySteps: Step[], treatmentIds: string[], strengthsOf: (treatmentId: string) => string[] = () => []): string[] {
  const problems: string[] = [];
  for (const t of Object.keys(file.titration)) if (!treatmentIds.includes(t)) problems.push(`titration: unknown treatment ${t}`);
  for (const [t, facts] of Object.entries(file.titration)) {
    const strengths = strengthsOf(t);
    for (const s of facts.first_supply_strengths ?? []) if (!strengths.includes(s)) problems.push(`titration: ${t} has no strength ${s}`);
  }
  const questions = new Map(safetySteps.flatMap((s) => s.questions.map((q) => [q.question_key, q] as const)));
  const safetyIds = new Set(safetySteps.map((s) => s.step_id));
  for (const s of file.renewal.steps) {
    if (safetyIds.has(s.step_id)) problems.push(`renewal: step_id ${s.step_id} is already a safety step`);
    for (const q of s.questions) {
      if (questions.has(q.question_key)) problems.push(`renewal: duplicate question_key ${q.question_key}`);
      questions.set(q.question_key, q);
    }
  }
  const walk = (c: Condition, where: string) => {
    if ('answer' in c || 'days_since' in c) {
      const key = 'answer' in c ? c.answer : c.days_since;
      const q = questions.get(key);
      if (!q) return void problems.push(`${where}: unknown question ${key}`);
      if ('days_since' in c && q.type !== 'date') problems.push(`${where}: days_since needs a date question`);
      if ('answer' in c) for (const o of [...(c.includes_any ?? []), ...(c.includes_none_of ?? [])]) if (!q.options?.some((x) => x.value === o)) problems.push(`${where}: unknown option ${o}`);
      if ('answer' in c && q.type === 'single_choice' && c.eq !== undefined && !q.options?.some((x) => x.value === c.eq)) problems.push(`${where}: unknown option ${typeof c.eq === 'string' ? c.eq : JSON.stringify(c.eq)}`);
    } else if ('all' in c) c.all.forEach((x) => walk(x, where));
    else if ('any' in c) c.any.forEach((x) => walk(x, where));
    else if ('not' in c) walk(c.not, where);
  };
  problems.push(...checkStrengthLimits(file.renewal.rules, strengthsOf));
  for (const r of file.renewal.rules) {
    walk(r.when, r.code);
    for (const t of r.treatments ?? []) if (!treatmentIds.includes(t)) problems.push(`${r.code}: unknown treatment ${t}`);
    if (r.kind === 'exclude_treatment' && !r.treatments?.length) problems.push(`${r.code}: exclude_treatment needs treatments`);
    if (r.kind === 'ineligible' && !r.alternative) problems.push(`${r.code}: ineligible rules name an alternative`);
  }
  return problems;
}

export function loadPrescribing(dir = PRESCRIBING_DIR): Map<string, PrescribingCategory> {
  const out = new Map<string, PrescribingCategory>();
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    const where = `catalogue/prescribing/${name}`;
    const parsed = FileSchema.safeParse(JSON.parse(readFileSync(join(dir, name), 'utf8')));
    if (!parsed.success) throw new Error(`${where}: ${z.prettifyError(parsed.error)}`);
    const file = parsed.data;
    const version = currentVersion(file.category);
    const category = getCategory(file.category);
    const problems = `${file.category}.json` === name ? [] : [`category ${file.category} in file ${name}`];
    const strengthsOf = (id: string) => category?.treatments.find((t) => t.treatment_id === id)?.strengths ?? [];
    problems.push(...checkPrescribingFile(file, version?.renewal.safety_steps ?? [], (category?.treatments ?? []).map((t) => t.treatment_id), strengthsOf));
    // An absolute code names an exclusion rule of the category (any version, or the renewal rules).
    const kinds = new Map<string, string>();
    for (const v of category?.versions ?? []) for (const r of [...v.rules, ...(v.renewal.rules ?? [])]) kinds.set(r.code, r.kind);
    for (const r of file.renewal.rules) kinds.set(r.code, r.kind);
    for (const code of Object.keys(file.absolute)) {
      const kind = kinds.get(code);
      if (!kind) problems.push(`absolute: unknown rule ${code}`);
      else if (kind !== 'ineligible' && kind !== 'exclude_treatment') problems.push(`absolute: ${code} is a ${kind} rule (only ineligible or exclude_treatment rules are absolute)`);
    }
    const categoryRules = [...(category?.versions ?? []).flatMap((v) => [...v.rules, ...(v.renewal.rules ?? [])]), ...file.renewal.rules];
    problems.push(...checkInstructions(file.instructions, category?.treatments ?? [], categoryRules));
    if (problems.length) throw new Error(`${where}: ${problems.join('; ')}`);
    out.set(file.category, { gp_sharing: file.gp_sharing, titration: file.titration, renewal: file.renewal, absolute: file.absolute, instructions: file.instructions });
  }
  return out;
}

const PRESCRIBING = loadPrescribing();

/** A category without a prescribing file asks nothing of the GP (every served category has one: test/catalogue tests). */
const NO_GP_SHARING: GpSharing = { level: 'none', reason: 'no prescribing file', source: 'none', monitoring: Object.fromEntries(LOCALES.map((l) => [l, '-'])) as LocalisedText };

export const prescribingFor = (slug: string): PrescribingCategory => PRESCRIBING.get(slug) ?? { gp_sharing: NO_GP_SHARING, titration: {}, renewal: { steps: [], rules: [] }, absolute: {}, instructions: { posology: {}, rules: {} } };

/** The category's GP sharing level and the monitoring its letters advise. */
export const gpSharingFor = (slug: string): GpSharing => prescribingFor(slug).gp_sharing;

/** One line of a prescription's instructions and where it comes from. */
export interface InstructionLine {
  text: string;
  source: string;
  /** The rule that added the line (null: the treatment's posology). */
  rule: string | null;
}

/**
 * A prescription's instructions from the catalogue: the treatment's posology at the prescribed
 * strength, then a line for each fired rule that names the treatment (an interaction's dose limit,
 * a caution the patient acts on). Pure; the loader guarantees a posology for every treatment and
 * strength, so the text is never empty (an unknown treatment or strength throws).
 */
export function prescriptionInstructions(slug: string, treatmentId: string, dosage: string, firedCodes: readonly string[]): { text: string; lines: InstructionLine[] } {
  const { posology, rules } = prescribingFor(slug).instructions;
  const p = posology[treatmentId];
  const base = p?.strengths?.[dosage] ?? p?.default;
  if (!p || !base || !(findTreatmentStrengths(slug, treatmentId) ?? []).includes(dosage)) throw new Error(`no posology for ${slug}/${treatmentId} ${dosage}`);
  const lines: InstructionLine[] = [{ text: base.replaceAll('{dosage}', dosage), source: p.source, rule: null }];
  for (const code of [...new Set(firedCodes)]) {
    const line = rules[code];
    if (line && line.treatments.includes(treatmentId)) lines.push({ text: line.text, source: line.source, rule: code });
  }
  return { text: lines.map((l) => l.text).join('\n'), lines };
}

const findTreatmentStrengths = (slug: string, treatmentId: string) => getCategory(slug)?.treatments.find((t) => t.treatment_id === treatmentId)?.strengths;

/** What the prescribing rules need to know of a rule code: its kind, strength limit and whether no override lifts it. */
export interface RuleFacts {
  kind: Rule['kind'];
  source: string;
  treatments: string[];
  strengths?: string[];
  first_supply_only?: true;
  absolute: boolean;
}

/**
 * A rule of a category by its code, as the newest version (then the prescribing catalogue's renewal
 * rules) defines it: a result stored under an older version is read with today's rule (a caution of
 * version 2 that version 3 made a strength limit binds old submissions too). Null for an unknown code.
 */
export function ruleFacts(slug: string, code: string): RuleFacts | null {
  const p = prescribingFor(slug);
  const versions = [...(getCategory(slug)?.versions ?? [])].reverse();
  const rule = [...versions.flatMap((v) => [...v.rules, ...(v.renewal.rules ?? [])]), ...p.renewal.rules].find((r) => r.code === code);
  if (!rule) return null;
  return {
    kind: rule.kind,
    source: rule.source,
    treatments: rule.treatments ?? [],
    ...(rule.strengths ? { strengths: rule.strengths } : {}),
    ...(rule.first_supply_only ? { first_supply_only: true as const } : {}),
    absolute: code in p.absolute,
  };
}
