// The desk's verification state beside a consultation: what the category requires, what is missing
// (a warning: with PATIENT_VERIFICATION=required the approval is refused until it is done), the
// identity and weight checks, and other accounts sharing the document, card or delivery address.
import type { Schemas } from '../../api/client';
import { Alert } from '../../components/ui';
import { useVerificationText, type VerificationText } from './strings';

type Verification = Schemas['ConsultationVerification'];

export function DeskVerificationPanel({ verification: x }: { verification: Verification }) {
  const { v, date } = useVerificationText();
  const item = (r: string) => v(r === 'identity' ? 'identity' : 'weight');
  return (
    <section aria-labelledby="desk-verification-h" data-testid="desk-verification">
      <h2 id="desk-verification-h">{v('deskTitle')}</h2>
      {x.warning ? <Alert kind="error">{`${v('deskMissing', { items: x.missing.map(item).join(', ') })}. ${x.warning}`}</Alert> : <Alert kind="success">{v('deskOk')}</Alert>}
      <dl className="facts">
        <dt>{v('identity')}</dt>
        <dd>
          {v(`status_${x.identity.status}` as keyof VerificationText)}
          {x.identity.mismatches.length ? ` (${x.identity.mismatches.join(', ')})` : ''}
        </dd>
        {x.required.includes('weight') ? (
          <>
            <dt>{v('weight')}</dt>
            <dd>
              {v(`status_${x.weight.status}` as keyof VerificationText)}
              {x.weight.weight_kg !== null ? ` · ${x.weight.weight_kg} kg` : ''}
              {x.weight.due_at ? ` · ${v('due', { date: date(x.weight.due_at) })}` : ''}
            </dd>
          </>
        ) : null}
      </dl>
      {x.duplicate_signals.length ? (
        <Alert kind="error">
          {x.duplicate_signals.map((s) => `${v('signals')} ${v(`signal_${s.kind}` as keyof VerificationText)}: ${s.account_ids.length}`).join(' · ')}
        </Alert>
      ) : null}
    </section>
  );
}
