// The treatment categories of the service (their slugs), in one list. The questionnaires module owns
// the catalogue and exports this list as CATEGORIES; it lives here, below the modules, because the
// profile (forms_completed) needs it too and questionnaires already imports profile: a copy in
// profile, or profile importing questionnaires (a folder cycle), would be the alternatives.
export const CATEGORY_SLUGS = [
  'hair_growth', 'weight_loss', 'sexual_health', 'premature_ejaculation', 'chlamydia', 'urinary_tract_infection', 'emergency_contraception', 'hiv_prep',
] as const;
export type CategorySlug = (typeof CATEGORY_SLUGS)[number];
