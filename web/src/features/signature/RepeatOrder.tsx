// The patient orders a repeat of a prescription (docs/prescriptions.md, "Repeats"): offered while
// the prescription is valid, has a repeat left and its first supply was dispensed; before the
// interval the date of the next one is shown instead. The payment goes through the provider's page
// and comes back to the app's checkout return page, like a consultation's.
import { useState } from 'react';
import { api } from '../../api/client';
import { useI18n } from '../../i18n';
import { Link } from '../../router';
import { useSignatureStrings } from './strings';

export interface RepeatOrderState {
  id: string;
  status: string;
  valid_until: string | null;
  dispensing: { dispensings_allowed: number; dispensed_count: number; repeats_left: number; next_dispensing_from: string | null };
}

/** What the prescription allows now: an order, a date to wait for, or nothing (no repeats, none left, expired, cancelled, first supply not dispensed). */
export function repeatOffer(rx: RepeatOrderState, now: Date): { kind: 'order' } | { kind: 'wait'; from: string } | null {
  const d = rx.dispensing;
  if (rx.status === 'cancelled' || d.dispensings_allowed <= 1 || d.repeats_left <= 0 || d.dispensed_count < 1) return null;
  if (rx.valid_until && Date.parse(rx.valid_until) <= now.getTime()) return null;
  if (d.next_dispensing_from && Date.parse(d.next_dispensing_from) > now.getTime()) return { kind: 'wait', from: d.next_dispensing_from };
  return { kind: 'order' };
}

type Refusal = { code?: string; earliest_at?: string; detail?: string; error_name?: string; missing_fields?: string[] };

export function RepeatOrder({ rx }: { rx: RepeatOrderState }) {
  const s = useSignatureStrings();
  const { date } = useI18n();
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ text: string; link?: { to: string; label: string } } | null>(null);
  const offer = repeatOffer(rx, new Date());
  if (!offer) return null;
  if (offer.kind === 'wait') {
    return (
      <p className="hint" data-testid="rx-repeat-next">
        {s('repeatNextFrom', { date: date(offer.from) })}
      </p>
    );
  }

  async function order() {
    setBusy(true);
    setMessage(null);
    const back = `${window.location.origin}/checkout/return?session_id={CHECKOUT_SESSION_ID}`;
    const { data, error } = await api.POST('/v1/users/prescriptions/{id}/repeat-orders/', { params: { path: { id: rx.id } }, body: { success_url: back, cancel_url: `${back}&cancelled=1` } });
    setBusy(false);
    if (data?.checkout_url) {
      localStorage.setItem('pts.checkout.provider', data.provider);
      window.location.assign(data.checkout_url);
      return;
    }
    const err = (error ?? {}) as Refusal;
    if (err.error_name === 'PROFILE_INCOMPLETE') setMessage({ text: s('repeatProfile'), link: { to: '/profile', label: s('repeatProfileLink') } });
    else if (err.code === 'repeat_too_early' && err.earliest_at) setMessage({ text: s('repeatNextFrom', { date: date(err.earliest_at) }) });
    else if (err.code === 'repeat_order_open') setMessage({ text: s('repeatOrderOpen'), link: { to: '/orders', label: s('repeatViewOrders') } });
    else if (err.code === 'prescription_expired') setMessage({ text: s('repeatExpired') });
    else if (err.code === 'already_dispensed' || err.code === 'repeat_not_available' || err.code === 'prescription_cancelled') setMessage({ text: s('repeatNoneLeft') });
    else setMessage({ text: err.detail ?? s('repeatFailed') });
  }

  return (
    <div className="rx-repeat-order" data-testid="rx-repeat-order">
      <p className="hint">{s('repeatOrderHint')}</p>
      <button type="button" disabled={busy} onClick={() => void order()}>
        {busy ? s('repeatOrdering') : s('repeatOrder')}
      </button>
      {message ? (
        <p role="alert" className="hint">
          {message.text} {message.link ? <Link to={message.link.to}>{message.link.label}</Link> : null}
        </p>
      ) : null}
    </div>
  );
}
