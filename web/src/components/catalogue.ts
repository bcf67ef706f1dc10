// Catalogue labels for the patient's pages: a category's title and a treatment's name in the
// patient's language, from the catalogue the service serves (questionnaire categories and each
// category's schema), never a raw id like `weight_loss` or `semaglutide`. Loaded once per locale and
// category (module cache), so a page listing many plans asks the service once per category.
import { useEffect, useState } from 'react';
import { api } from '../api/client';
import { useI18n } from '../i18n';

type Names = { title: string; treatments: Record<string, string> };
const categories = new Map<string, Promise<Record<string, string>>>();
const treatments = new Map<string, Promise<Record<string, string>>>();

function loadCategories(locale: string): Promise<Record<string, string>> {
  let p = categories.get(locale);
  if (!p) {
    p = api
      .GET('/v1/users/questionnaires/categories/', { params: { query: { locale } } })
      .then(({ data }) => Object.fromEntries((data?.categories ?? []).map((c) => [c.slug, c.title])))
      .catch(() => ({}));
    categories.set(locale, p);
  }
  return p;
}

function loadTreatments(locale: string, slug: string): Promise<Record<string, string>> {
  const key = `${locale}:${slug}`;
  let p = treatments.get(key);
  if (!p) {
    p = api
      .GET('/v1/users/questionnaires/{slug}/schema/', { params: { path: { slug }, query: { locale } } })
      .then(({ data }) => Object.fromEntries((data?.treatments ?? []).map((x) => [x.treatment_id, x.name])))
      .catch(() => ({}));
    treatments.set(key, p);
  }
  return p;
}

/** Forgets the loaded labels (tests stand in different catalogues). */
export function resetCatalogueCache() {
  categories.clear();
  treatments.clear();
}

/** A readable fallback while the catalogue loads (or for a category it no longer has): `hair_growth` -> `Hair growth`. */
const humanise = (id: string) => (id ? id.charAt(0).toUpperCase() + id.slice(1).replace(/_/g, ' ') : id);

export interface CatalogueLabels {
  category: (slug: string) => string;
  /** The treatment's catalogue name, with the dose when given: "Semaglutide (Wegovy) pen 0.25 mg". */
  treatment: (slug: string, treatmentId: string, dosage?: string) => string;
}

/** Labels for the categories named (their treatments are loaded for those categories only). */
export function useCatalogue(slugs: readonly string[]): CatalogueLabels {
  const { locale } = useI18n();
  const [names, setNames] = useState<Record<string, Names>>({});
  const key = [...new Set(slugs)].sort().join(',');
  useEffect(() => {
    let live = true;
    const wanted = key ? key.split(',') : [];
    void Promise.all([loadCategories(locale), ...wanted.map((s) => loadTreatments(locale, s))]).then(([titles, ...lists]) => {
      if (!live) return;
      setNames(Object.fromEntries(wanted.map((s, i) => [s, { title: titles[s] ?? humanise(s), treatments: lists[i] ?? {} }])));
    });
    return () => {
      live = false;
    };
  }, [key, locale]);
  return {
    category: (slug) => names[slug]?.title ?? humanise(slug),
    treatment: (slug, id, dosage) => {
      const name = names[slug]?.treatments[id] ?? humanise(id);
      return dosage ? `${name} ${dosage}` : name;
    },
  };
}
