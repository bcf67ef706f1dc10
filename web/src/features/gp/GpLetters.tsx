// The letters to the patient's own doctor (docs/interoperability.md): each approval that needs one,
// with the consent, sends the GP a letter; the patient sees where and when it went and downloads it.
import { api, download, type Schemas } from '../../api/client';
import { LoadError, Loading, useLoad } from '../../components/ui';
import { useI18n } from '../../i18n';
import { useGpText } from './strings';

type Page = { count: number; results: Schemas['GpLetter'][] };

export default function GpLetters() {
  const g = useGpText();
  const { date } = useI18n();
  const letters = useLoad<Page>(() => api.GET('/v1/users/me/gp-letters/'));
  return (
    <section aria-labelledby="gp-letters-h">
      <h3 id="gp-letters-h">{g('lettersTitle')}</h3>
      <p>{g('lettersIntro')}</p>
      {letters.error ? (
        <LoadError error={letters.error} />
      ) : !letters.data ? (
        <Loading />
      ) : letters.data.results.length === 0 ? (
        <p>{g('noLetters')}</p>
      ) : (
        <ul>
          {letters.data.results.map((l) => (
            <li key={l.id}>
              {l.status === 'sent' && l.sent_at ? g('letterSent', { to: l.recipient, date: date(l.sent_at) }) : g('letterQueued', { to: l.recipient })}{' '}
              <button type="button" className="link" onClick={() => void download(`/v1/users/me/gp-letters/${l.id}/pdf/`, `letter-${l.id}.pdf`)}>
                {g('downloadLetter')}
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
