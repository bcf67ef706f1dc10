// The emergency notice: a full-screen dialog that stops the flow and offers the patient's country's
// emergency number as a tap-to-call link. Shown for a red-flag answer, emergency wording in a message
// or a severe side-effect report (the service decides and sends the notice with the number).
import { createContext, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import type { Schemas } from '../api/client';
import { useI18n } from '../i18n';

export type EmergencyNotice = Schemas['EmergencyNotice'];

const Ctx = createContext<(n: EmergencyNotice | null) => void>(() => undefined);
export const useEmergency = () => useContext(Ctx);

const tel = (n: string) => `tel:${n.replace(/[^\d+]/g, '')}`;

/** A non-emergency number's name in the page's language: 116117 is the EU-wide medical on-call service
 * (catalogue/countries.json names it in the country's language); other numbers keep the catalogue's label. */
const serviceLabel = (t: ReturnType<typeof useI18n>['t'], n: { number: string; label: string }) => (n.number === '116117' ? t('emergency.oncall116117') : n.label);

export function EmergencyProvider({ children }: { children: ReactNode }) {
  const [notice, setNotice] = useState<EmergencyNotice | null>(null);
  return (
    <Ctx.Provider value={setNotice}>
      {notice ? <EmergencyScreen notice={notice} onClose={() => setNotice(null)} /> : children}
    </Ctx.Provider>
  );
}

export function EmergencyScreen({ notice, onClose }: { notice: EmergencyNotice; onClose: () => void }) {
  const { t } = useI18n();
  const ref = useRef<HTMLAnchorElement>(null);
  useEffect(() => {
    ref.current?.focus();
    document.title = t('emergency.title');
  }, [t]);
  const numbers = notice.numbers.length ? notice.numbers : [notice.number];
  return (
    <div className="emergency" role="alertdialog" aria-modal="true" aria-labelledby="emergency-title" aria-describedby="emergency-text">
      <main className="emergency-inner">
        <h1 id="emergency-title">{t('emergency.title')}</h1>
        <p id="emergency-text">{t('emergency.text')}</p>
        {notice.message ? <p className="emergency-message">{notice.message}</p> : null}
        <ul className="emergency-numbers">
          {numbers.map((n, i) => (
            <li key={n}>
              <a ref={i === 0 ? ref : undefined} className="call" href={tel(n)}>
                {t('emergency.call', { number: n })}
              </a>
            </li>
          ))}
        </ul>
        {notice.non_emergency.length ? (
          <div>
            <p>{t('emergency.other')}</p>
            <ul>
              {notice.non_emergency.map((n) => (
                <li key={n.number}>
                  <a href={tel(n.number)}>
                    {serviceLabel(t, n)}: {n.number}
                  </a>
                </li>
              ))}
            </ul>
          </div>
        ) : null}
        <button type="button" className="secondary" onClick={onClose}>
          {t('emergency.close')}
        </button>
      </main>
    </div>
  );
}
