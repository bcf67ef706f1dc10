// The review desk's dose-change requests (docs/plan-management.md): patients ask for another
// dose between renewals; the doctor approves it (it becomes the next delivery's dose, re-checked by the
// prescribing rule) or declines it, with a note the patient sees. Mounted on the desk page.
import { useState } from 'react';
import { api, errorText, type Schemas } from '../api/client';
import { Alert, LoadError, TextArea, useLoad } from './ui';
import { useI18n } from '../i18n';

type Request = Schemas['DeskDoseChangeRequest'];

export function DoseChangeDesk() {
  const { t } = useI18n();
  const queue = useLoad(() => api.GET('/v1/clinician/dose-change-requests/', { params: { query: { limit: 100 } as never } }));
  const rows = queue.data?.results ?? [];
  return (
    <section aria-labelledby="dose-changes-h">
      <h2 id="dose-changes-h">{t('desk.doseChanges')}</h2>
      <LoadError error={queue.error} />
      {queue.data && !rows.length ? <p>{t('desk.doseNone')}</p> : null}
      {rows.map((r) => (
        <DoseChangeItem key={r.id} request={r} onDecided={() => queue.reload()} />
      ))}
    </section>
  );
}

function DoseChangeItem({ request: r, onDecided }: { request: Request; onDecided: () => void }) {
  const { t, dateTime } = useI18n();
  const [note, setNote] = useState('');
  const [error, setError] = useState('');
  async function decide(decision: 'approve' | 'decline') {
    setError('');
    const res = await api.POST('/v1/clinician/dose-change-requests/{id}/decide/', { params: { path: { id: r.id } }, body: { decision, note } });
    if (res.data) onDecided();
    else setError(errorText(res.error, t('app.error')));
  }
  return (
    <article className="card">
      <p>
        <strong>{r.category.replace(/_/g, ' ')}</strong>: {r.treatment_id} {r.from_dosage} → {r.requested_dosage} · {dateTime(r.created_at)}
      </p>
      {r.note ? <p>{r.note}</p> : null}
      {r.prescribing_check && !r.prescribing_check.ok ? <Alert kind="error">{r.prescribing_check.explanation.join(' ') || r.prescribing_check.reason_codes.join(', ')}</Alert> : null}
      {error ? <Alert kind="error">{error}</Alert> : null}
      <TextArea label={t('desk.doseNote')} name={`dose-note-${r.id}`} maxLength={2000} value={note} onChange={(e) => setNote(e.target.value)} />
      <div className="actions">
        <button type="button" onClick={() => decide('approve')} disabled={r.prescribing_check?.ok === false}>
          {t('desk.doseApprove')}
        </button>
        <button type="button" className="danger" onClick={() => decide('decline')}>
          {t('desk.doseDecline')}
        </button>
      </div>
    </article>
  );
}
