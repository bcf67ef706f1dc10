// The footer of every page: the cancellation link (§ 312k BGB: always reachable), our doctors, the
// accessibility statement and the imprint, and the EU common logo of distance selling linking to
// the dispensing pharmacy's register entry (docs/compliance.md).
import { lazy, Suspense } from 'react';
import { useSession } from '../../auth';
import { useLoad } from '../../components/ui';
import { useI18n } from '../../i18n';
import { Link } from '../../router';
import { PUBLIC_STRINGS, type FooterKey } from './footer-strings';
import { loadSite } from './site';
import './compliance.css';

// Its own chunk: the logo shows once the site settings have loaded anyway.
const EuLogo = lazy(() => import('./EuLogo').then((m) => ({ default: m.EuLogo })));

export function useFooterStrings() {
  const { locale } = useI18n();
  const dict = PUBLIC_STRINGS[locale];
  return (key: FooterKey, vars: Record<string, string> = {}) => dict[key].replace(/\{(\w+)\}/g, (m, k: string) => vars[k] ?? m);
}

export function Footer() {
  const s = useFooterStrings();
  const session = useSession();
  const site = useLoad(() => loadSite(), []);
  const distance = site.data?.distance_selling ?? null;
  return (
    <footer className="site-footer">
      <nav aria-label={s('label')}>
        <ul>
          <li>
            <Link to="/cancel" className="footer-cancel">
              {s('cancel')}
            </Link>
          </li>
          <li>
            <Link to="/doctors">{s('doctors')}</Link>
          </li>
          <li>
            <Link to="/accessibility">{s('accessibility')}</Link>
          </li>
          <li>
            <Link to="/imprint">{s('imprint')}</Link>
          </li>
          {session?.is_doctor ? (
            <li>
              <Link to="/desk/profile">{s('deskProfile')}</Link>
            </li>
          ) : null}
        </ul>
      </nav>
      {distance ? (
        <Suspense fallback={null}>
          <EuLogo registerUrl={distance.register_url} country={distance.country} text={s('logoText')} detail={s('logoLabel', { pharmacy: distance.pharmacy_name })} />
        </Suspense>
      ) : null}
    </footer>
  );
}
