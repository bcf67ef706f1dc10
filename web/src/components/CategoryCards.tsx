// The treatment categories as cards (the landing page and the treatments page): what each treats,
// its consultation price (never a medicine or its price: docs/compliance.md), and the way into its questionnaire.
import { api } from '../api/client';
import { useI18n } from '../i18n';
import { Link } from '../router';
import { LoadError, Loading, useLoad } from './ui';

export function CategoryCards({ heading: Heading }: { heading: 'h2' | 'h3' }) {
  const { t, locale, money } = useI18n();
  const cats = useLoad(() => api.GET('/v1/users/questionnaires/categories/', { params: { query: { locale } } }), [locale]);
  return (
    <>
      <LoadError error={cats.error} />
      {cats.loading && !cats.data ? <Loading /> : null}
      <ul className="cards cards-grid">
        {cats.data?.categories.map((c) => (
          <li key={c.slug} className="card">
            <Heading>{c.title}</Heading>
            <p>{c.description}</p>
            <p className="price">
              {t('landing.priceFrom', { price: money(c.price_from.one_off_cents, c.price_from.currency) })}
              {c.price_from.plan_cents !== null ? (
                <>
                  <br />
                  {t('landing.planFrom', { price: money(c.price_from.plan_cents, c.price_from.currency) })}
                </>
              ) : null}
            </p>
            <Link className="button" to={`/questionnaire/${c.slug}`}>
              {t('treatments.start')}
              <span className="visually-hidden">: {c.title}</span>
            </Link>
          </li>
        ))}
      </ul>
    </>
  );
}
