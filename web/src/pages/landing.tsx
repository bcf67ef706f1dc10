// The front page for a visitor: what is treated and for how much (prices from the catalogue), how it
// works, the doctor's review and delivery, then sign-up. A signed-in visitor goes to their own start.
import { useSession } from '../auth';
import { CategoryCards } from '../components/CategoryCards';
import { PageTitle } from '../components/ui';
import { useI18n } from '../i18n';
import { Link, Redirect } from '../router';

const STEPS = ['1', '2', '3', '4'] as const;

export function Landing() {
  const session = useSession();
  if (session) return <Redirect to={session.is_doctor ? '/desk' : session.is_pharmacist ? '/pharmacy' : '/home'} />;
  return <Welcome />;
}

function Welcome() {
  const { t } = useI18n();
  return (
    <div className="landing">
      <section className="hero">
        <PageTitle>{t('landing.title')}</PageTitle>
        <p className="lead">{t('landing.lead')}</p>
        <div className="actions">
          <Link className="button" to="/sign-up">
            {t('landing.cta')}
          </Link>
          <a className="button secondary" href="#treatments">
            {t('landing.browse')}
          </a>
        </div>
      </section>

      <section id="treatments" aria-labelledby="landing-treatments">
        <h2 id="landing-treatments">{t('landing.categoriesTitle')}</h2>
        <CategoryCards heading="h3" />
      </section>

      <section aria-labelledby="landing-how">
        <h2 id="landing-how">{t('landing.howTitle')}</h2>
        <ol className="steps">
          {STEPS.map((n) => (
            <li key={n}>
              <h3>{t(`landing.step${n}.title` as 'landing.step1.title')}</h3>
              <p>{t(`landing.step${n}.body` as 'landing.step1.body')}</p>
            </li>
          ))}
        </ol>
      </section>

      <section className="card" aria-labelledby="landing-join">
        <h2 id="landing-join">{t('landing.joinTitle')}</h2>
        <p>{t('landing.joinBody')}</p>
        <div className="actions">
          <Link className="button" to="/sign-up">
            {t('landing.cta')}
          </Link>
          <Link to="/sign-in">{t('landing.haveAccount')}</Link>
        </div>
        <p className="hint">{t('landing.emergency')}</p>
      </section>
    </div>
  );
}
