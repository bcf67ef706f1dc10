// The questionnaire catalogue: versioned data files under catalogue/categories/<slug>/v<n>.json,
// validated by zod at start-up (an invalid file stops the process). Format: docs/catalogue.md.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { CATEGORY_SLUGS, type CategorySlug } from '../../lib/categories.ts';
import { isLocale, LOCALES, type Locale } from '../../lib/locales.ts';

// The service's one locale list (src/lib/locales.ts): every catalogue text has each of them.
export type { Locale };
// The one category list (src/lib/categories.ts): a catalogue file exists for each slug.
export { CATEGORY_SLUGS, type CategorySlug };

const Text = z.object(Object.fromEntries(LOCALES.map((l) => [l, z.string().min(1)])) as Record<Locale, z.ZodString>).strict();
export type LocalisedText = z.infer<typeof Text>;

export type Condition =
  | { answer: string; eq?: unknown; in?: unknown[]; includes_any?: string[]; includes_none_of?: string[]; gt?: number; gte?: number; lt?: number; lte?: number }
  | { computed: 'bmi' | 'age'; gt?: number; gte?: number; lt?: number; lte?: number }
  | { profile: 'gender' | 'country_of_residence'; in: string[] }
  | { days_since: string; gt?: number; gte?: number; lt?: number; lte?: number }
  | { all: Condition[] }
  | { any: Condition[] }
  | { not: Condition };
const cmp = { gt: z.number().optional(), gte: z.number().optional(), lt: z.number().optional(), lte: z.number().optional() };
export const ConditionSchema: z.ZodType<Condition> = z.lazy(() =>
  z.union([
    z.object({ answer: z.string(), eq: z.unknown().optional(), in: z.array(z.unknown()).optional(), includes_any: z.array(z.string()).optional(), includes_none_of: z.array(z.string()).optional(), ...cmp }).strict(),
    z.object({ computed: z.enum(['bmi', 'age']), ...cmp }).strict(),
    z.object({ profile: z.enum(['gender', 'country_of_residence']), in: z.array(z.string()) }).strict(),
    // Whole days from a date answer to the evaluation date (e.g. the last negative HIV test).
    z.object({ days_since: z.string(), ...cmp }).strict(),
    z.object({ all: z.array(ConditionSchema).min(1) }).strict(),
    z.object({ any: z.array(ConditionSchema).min(1) }).strict(),
    z.object({ not: ConditionSchema }).strict(),
  ]),
);

/** The most photos one photo question can take (the catalogue, every save and the upload route hold to it). */
export const MAX_PHOTOS_PER_QUESTION = 4;

const QuestionSchema = z
  .object({
    question_key: z.string().regex(/^[a-z][a-z0-9_]*$/),
    type: z.enum(['boolean', 'single_choice', 'multiple_choice', 'number', 'date', 'text', 'photo']),
    required: z.boolean(),
    text: Text,
    options: z.array(z.object({ value: z.string(), label: Text }).strict()).optional(),
    unit: z.string().optional(),
    min: z.number().optional(),
    max: z.number().optional(),
    max_length: z.number().int().positive().optional(),
    visible_if: ConditionSchema.optional(),
    /** A number of hours that keeps growing after the answer (e.g. hours since unprotected sex): re-checked at approval. */
    elapses: z.literal('hours').optional(),
    /** `photo`: the views the doctor needs (e.g. crown, hairline, temples); each photo answers one. */
    views: z.array(z.object({ value: z.string().regex(/^[a-z][a-z0-9_]*$/), label: Text, hint: Text }).strict()).min(1).optional(),
    /** `photo`: how many photos an answer needs (submission) and may hold (every save), 1 to MAX_PHOTOS_PER_QUESTION. */
    min_photos: z.number().int().min(1).max(MAX_PHOTOS_PER_QUESTION).optional(),
    max_photos: z.number().int().min(1).max(MAX_PHOTOS_PER_QUESTION).optional(),
  })
  .strict()
  .refine((q) => !['single_choice', 'multiple_choice'].includes(q.type) || (q.options?.length ?? 0) >= 2, 'choice questions need options')
  .refine((q) => (q.type === 'photo') === (q.views !== undefined && q.min_photos !== undefined && q.max_photos !== undefined), 'photo questions (and only they) have views, min_photos and max_photos')
  .refine((q) => q.min_photos === undefined || q.max_photos === undefined || q.min_photos <= q.max_photos, 'min_photos is at most max_photos');

export type Question = z.infer<typeof QuestionSchema>;

export const StepSchema = z.object({ step_id: z.number().int().positive(), title: Text, questions: z.array(QuestionSchema).min(1) }).strict();
export type Step = z.infer<typeof StepSchema>;

export const RuleSchema = z
  .object({
    code: z.string().regex(/^[A-Z0-9_]+$/),
    kind: z.enum(['red_flag', 'ineligible', 'exclude_treatment', 'limit_strengths', 'caution']),
    source: z.string().min(1),
    when: ConditionSchema,
    treatments: z.array(z.string()).optional(),
    alternative: z.string().optional(),
    /** `limit_strengths`: the only strengths of `treatments` that may be sold and prescribed while the rule holds. */
    strengths: z.array(z.string()).min(1).optional(),
    /** `limit_strengths`: the limit binds a first supply of the treatment only (a starting dose, e.g. sildenafil 25 mg with an alpha-blocker [E2]). */
    first_supply_only: z.literal(true).optional(),
  })
  .strict();
export type Rule = z.infer<typeof RuleSchema>;

export const TreatmentSchema = z
  .object({
    treatment_id: z.string().regex(/^[a-z0-9-]+$/),
    name: z.string(),
    strengths: z.array(z.string()).min(1),
    dosage_ladder: z.array(z.string()).min(1).nullable(),
    min_weeks_per_step: z.number().int().positive().nullable(),
    supply_days: z.number().int().positive(),
    plan_cycle_days: z.number().int().positive().nullable(),
    one_off_price_cents: z.number().int().positive(),
    plan_price_cents: z.number().int().positive().nullable(),
    currency: z.literal('EUR'),
    source: z.string(),
  })
  .strict();
export type Treatment = z.infer<typeof TreatmentSchema> & {
  /** dosage_ladder, or the strengths when not titrated (billing's choice list). */
  dosages: string[];
  /** The name in every locale (catalogue/treatment-names.json; `en` equals `name`). */
  names: LocalisedText;
};

/** catalogue/treatment-names.json: each treatment's name per locale, keyed by treatment_id (labels, outside the published versions). */
const TreatmentNamesSchema = z.object({ description: z.string(), names: z.record(z.string(), Text) }).strict();

const VersionFileSchema = z
  .object({
    format: z.literal(1),
    category: z
      .object({ slug: z.enum(CATEGORY_SLUGS), id: z.uuid(), default_plan: z.enum(['subscription', 'one_off']), title: Text, description: Text, treatments: z.array(TreatmentSchema).min(1) })
      .strict(),
    version: z
      .object({
        id: z.uuid(),
        number: z.number().int().positive(),
        published_at: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
        steps: z.array(StepSchema).min(1),
        rules: z.array(RuleSchema).min(1),
        // `rules` (from version 2): the engine's rules over the safety screen's answers at each renewal.
        renewal: z.object({ safety_steps: z.array(StepSchema).min(1), review_steps: z.literal('questionnaire'), rules: z.array(RuleSchema).optional() }).strict(),
      })
      .strict(),
  })
  .strict();

export interface Version {
  id: string;
  number: number;
  published_at: string;
  category: string;
  category_id: string;
  steps: Step[];
  rules: Rule[];
  renewal: { safety_steps: Step[]; review_steps: 'questionnaire'; rules?: Rule[] };
}
/** What the engine evaluates: questions and the rules over them (a version, or a renewal screen). */
export interface RuleSet {
  category: string;
  steps: Step[];
  rules: Rule[];
}
export interface Category {
  slug: string;
  id: string;
  default_plan: 'subscription' | 'one_off';
  title: LocalisedText;
  description: LocalisedText;
  treatments: Treatment[];
  versions: Version[];
  current_version_id: string;
}

/** Cross-checks a version beyond the shape: unique ids and keys, rules name existing questions, options and treatments. */
export function checkVersionConsistency(file: z.infer<typeof VersionFileSchema>): string[] {
  const { category, version } = file;
  const problems: string[] = [];
  for (const t of category.treatments) {
    if (t.dosage_ladder && t.min_weeks_per_step === null) problems.push(`${t.treatment_id}: a dosage ladder needs min_weeks_per_step`);
    if ((t.plan_price_cents === null) !== (t.plan_cycle_days === null)) problems.push(`${t.treatment_id}: plan price and cycle go together`);
  }
  const treatmentIds = new Set(category.treatments.map((t) => t.treatment_id));
  problems.push(...checkRuleSet(version.steps, version.rules, treatmentIds, ''));
  problems.push(...checkRuleSet(version.renewal.safety_steps, version.renewal.rules ?? [], treatmentIds, 'renewal '));
  const strengths = new Map(category.treatments.map((t) => [t.treatment_id, t.strengths]));
  problems.push(...checkStrengthLimits([...version.rules, ...(version.renewal.rules ?? [])], (id) => strengths.get(id) ?? []));
  return problems;
}

/** `limit_strengths` rules name treatments and strengths of those treatments; `strengths` and `first_supply_only` belong to them only. */
export function checkStrengthLimits(rules: Rule[], strengthsOf: (treatmentId: string) => string[]): string[] {
  const problems: string[] = [];
  for (const r of rules) {
    if (r.kind !== 'limit_strengths') {
      if (r.strengths || r.first_supply_only) problems.push(`${r.code}: strengths and first_supply_only belong to limit_strengths rules`);
      continue;
    }
    if (!r.treatments?.length || !r.strengths?.length) problems.push(`${r.code}: limit_strengths needs treatments and strengths`);
    for (const t of r.treatments ?? []) for (const s of r.strengths ?? []) if (!strengthsOf(t).includes(s)) problems.push(`${r.code}: ${t} has no strength ${s}`);
  }
  return problems;
}

/** Steps and the rules over them: unique ids and keys, rules name existing questions, options and treatments. */
function checkRuleSet(stepList: Step[], rules: Rule[], treatmentIds: Set<string>, prefix: string): string[] {
  const problems: string[] = [];
  const questions = new Map<string, Question>();
  const steps = new Set<number>();
  for (const s of stepList) {
    if (steps.has(s.step_id)) problems.push(`${prefix}duplicate step_id ${s.step_id}`);
    steps.add(s.step_id);
    for (const q of s.questions) {
      if (questions.has(q.question_key)) problems.push(`${prefix}duplicate question_key ${q.question_key}`);
      questions.set(q.question_key, q);
      if (q.elapses && q.type !== 'number') problems.push(`${prefix}${q.question_key}: only a number question elapses`);
      if (q.type === 'photo' && prefix) problems.push(`${prefix}${q.question_key}: a renewal screen has no photo question`);
    }
  }
  const walk = (c: Condition, where: string) => {
    if ('answer' in c) {
      const q = questions.get(c.answer);
      if (!q) return problems.push(`${prefix}${where}: unknown question ${c.answer}`);
      // A photo is for the doctor's eyes: no rule and no visibility reads it.
      if (q.type === 'photo') return problems.push(`${prefix}${where}: a rule cannot read the photo question ${c.answer}`);
      for (const o of [...(c.includes_any ?? []), ...(c.includes_none_of ?? [])]) if (!q.options?.some((x) => x.value === o)) problems.push(`${prefix}${where}: unknown option ${o}`);
      if (q.type === 'single_choice' && c.eq !== undefined && !q.options?.some((x) => x.value === c.eq)) problems.push(`${prefix}${where}: unknown option ${typeof c.eq === 'string' ? c.eq : JSON.stringify(c.eq)}`);
    } else if ('all' in c) c.all.forEach((x) => walk(x, where));
    else if ('any' in c) c.any.forEach((x) => walk(x, where));
    else if ('not' in c) walk(c.not, where);
  };
  for (const r of rules) {
    walk(r.when, r.code);
    for (const t of r.treatments ?? []) if (!treatmentIds.has(t)) problems.push(`${prefix}${r.code}: unknown treatment ${t}`);
    if (r.kind === 'exclude_treatment' && !r.treatments?.length) problems.push(`${prefix}${r.code}: exclude_treatment needs treatments`);
    if (r.kind === 'ineligible' && !r.alternative) problems.push(`${prefix}${r.code}: ineligible rules name an alternative`);
  }
  for (const s of stepList) for (const q of s.questions) if (q.visible_if) walk(q.visible_if, q.question_key);
  return problems;
}

export const CATALOGUE_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../../catalogue/categories');

export const TREATMENT_NAMES_FILE = join(dirname(fileURLToPath(import.meta.url)), '../../../catalogue/treatment-names.json');

export function loadCatalogue(dir = CATALOGUE_DIR, namesFile = TREATMENT_NAMES_FILE): Map<string, Category> {
  const out = new Map<string, Category>();
  const namesParsed = TreatmentNamesSchema.safeParse(JSON.parse(readFileSync(namesFile, 'utf8')));
  if (!namesParsed.success) throw new Error(`catalogue/treatment-names.json: ${z.prettifyError(namesParsed.error)}`);
  const names = namesParsed.data.names;
  const named = new Set<string>();
  const versionIds = new Set<string>();
  for (const slug of readdirSync(dir).sort()) {
    for (const name of readdirSync(join(dir, slug)).filter((f) => /^v\d+\.json$/.test(f)).sort((a, b) => parseInt(a.slice(1)) - parseInt(b.slice(1)))) {
      const where = `catalogue/categories/${slug}/${name}`;
      const parsed = VersionFileSchema.safeParse(JSON.parse(readFileSync(join(dir, slug, name), 'utf8')));
      if (!parsed.success) throw new Error(`${where}: ${z.prettifyError(parsed.error)}`);
      const file = parsed.data;
      const problems = checkVersionConsistency(file);
      if (file.category.slug !== slug) problems.push(`slug ${file.category.slug} in folder ${slug}`);
      if (`v${file.version.number}.json` !== name) problems.push('version number does not match the file name');
      if (versionIds.has(file.version.id)) problems.push(`duplicate version id ${file.version.id}`);
      for (const t of file.category.treatments) {
        const n = names[t.treatment_id];
        if (!n) problems.push(`treatment ${t.treatment_id} has no names in catalogue/treatment-names.json`);
        else if (n.en !== t.name) problems.push(`treatment ${t.treatment_id}: its English name in catalogue/treatment-names.json is not "${t.name}"`);
        named.add(t.treatment_id);
      }
      if (problems.length) throw new Error(`${where}: ${problems.join('; ')}`);
      versionIds.add(file.version.id);
      const version: Version = { ...file.version, category: slug, category_id: file.category.id };
      // The newest version carries the category's current metadata and treatments.
      const prev = out.get(slug);
      out.set(slug, {
        ...file.category,
        treatments: file.category.treatments.map((t) => ({ ...t, dosages: t.dosage_ladder ?? t.strengths, names: names[t.treatment_id]! })),
        versions: [...(prev?.versions ?? []), version],
        current_version_id: version.id,
      });
    }
  }
  for (const slug of CATEGORY_SLUGS) if (!out.has(slug)) throw new Error(`catalogue: category ${slug} is missing`);
  const unknown = Object.keys(names).filter((id) => !named.has(id));
  if (unknown.length) throw new Error(`catalogue/treatment-names.json: unknown treatments ${unknown.join(', ')}`);
  return out;
}

const CATALOGUE = loadCatalogue();
const VERSIONS = new Map<string, Version>([...CATALOGUE.values()].flatMap((c) => c.versions.map((v) => [v.id, v] as const)));

export const listCategories = (): Category[] => CATEGORY_SLUGS.map((s) => CATALOGUE.get(s)!);
export const getCategory = (slug: string): Category | undefined => CATALOGUE.get(slug);
export const getCategoryById = (id: string): Category | undefined => listCategories().find((c) => c.id === id);
export const findTreatment = (slug: string, treatmentId: string): Treatment | undefined => getCategory(slug)?.treatments.find((t) => t.treatment_id === treatmentId);
export const getVersion = (versionId: string): Version | undefined => VERSIONS.get(versionId);
export function currentVersion(slug: string): Version | undefined {
  const c = getCategory(slug);
  return c ? VERSIONS.get(c.current_version_id) : undefined;
}
/** Renewal screens (subscriptions): the safety screen for the current treatment, and the broader review (the full current questionnaire) when the patient declares a change. */
export function renewalScreen(slug: string): { safety_steps: Step[]; review_steps: Step[] } | undefined {
  const v = currentVersion(slug);
  // Without photo questions: a renewal takes no uploads (renewalRuleSet, prescribing.ts).
  const review = v?.steps.map((s) => ({ ...s, questions: s.questions.filter((q) => q.type !== 'photo') })).filter((s) => s.questions.length > 0);
  return v && review ? { safety_steps: v.renewal.safety_steps, review_steps: review } : undefined;
}

/** Categories the review desk serves first: their treatment only works within hours (emergency contraception: EC1, EC3). */
export const TIME_CRITICAL_CATEGORIES: readonly string[] = ['emergency_contraception'];

/** Picks a locale from ?locale= or Accept-Language (q-weighted); English when nothing matches. */
export function pickLocale(query: string | undefined, acceptLanguage: string | undefined): Locale {
  const asked = query?.toLowerCase();
  if (isLocale(asked)) return asked;
  const prefs = (acceptLanguage ?? '')
    .split(',')
    .map((part, i) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { lang: tag.trim().toLowerCase().split('-')[0] ?? '', q: q ? Number(q.slice(2)) || 0 : 1, i };
    })
    .filter((p) => p.lang && p.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const p of prefs) if (isLocale(p.lang)) return p.lang;
  return 'en';
}

/** Steps with texts in one locale (the public schema shape; also for renewal screens). */
export const localisedSteps = (steps: Step[], locale: Locale) =>
  steps.map((s) => ({
    step_id: s.step_id,
    title: s.title[locale],
    questions: s.questions.map((q) => ({
      question_key: q.question_key,
      type: q.type,
      required: q.required,
      text: q.text[locale],
      ...(q.options ? { options: q.options.map((o) => ({ value: o.value, label: o.label[locale] })) } : {}),
      ...(q.unit !== undefined ? { unit: q.unit } : {}),
      ...(q.min !== undefined ? { min: q.min } : {}),
      ...(q.max !== undefined ? { max: q.max } : {}),
      ...(q.max_length !== undefined ? { max_length: q.max_length } : {}),
      ...(q.visible_if ? { visible_if: q.visible_if } : {}),
      ...(q.views ? { views: q.views.map((v) => ({ value: v.value, label: v.label[locale], hint: v.hint[locale] })) } : {}),
      ...(q.min_photos !== undefined ? { min_photos: q.min_photos } : {}),
      ...(q.max_photos !== undefined ? { max_photos: q.max_photos } : {}),
    })),
  }));

