// The emergency-contraception delivery notice on the result page: in time, a hint with the expected
// arrival; too late, an alert pointing to a nearby pharmacy or collection; nothing when collecting.
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { DeliveryNotice } from '../src/features/ec-delivery/DeliveryNotice';
import { DELIVERY_STRINGS } from '../src/features/ec-delivery/strings';
import { wrap } from './support/serve';

afterEach(cleanup);

const verdicts = [
  { treatment_id: 'levonorgestrel', estimated_arrival: '2026-12-07T17:00:00.000Z', window_ends_at: '2026-12-06T10:00:00.000Z', arrives_in_time: false },
  { treatment_id: 'ulipristal', estimated_arrival: '2026-12-07T17:00:00.000Z', window_ends_at: '2026-12-08T10:00:00.000Z', arrives_in_time: true },
];

describe('DeliveryNotice', () => {
  it('too late: an alert that names a nearby pharmacy and collection, in the page’s language', () => {
    render(wrap(<DeliveryNotice verdicts={verdicts} treatmentId="levonorgestrel" collecting={false} />, 'de'));
    expect(screen.getByRole('alert').textContent).toContain('Apotheke in Ihrer Nähe');
  });

  it('in time: a hint, no alert; collecting: nothing', () => {
    const { container } = render(wrap(<DeliveryNotice verdicts={verdicts} treatmentId="ulipristal" collecting={false} />));
    expect(screen.queryByRole('alert')).toBeNull();
    expect(container.textContent).toMatch(/Take it as soon as it arrives/);
    cleanup();
    const none = render(wrap(<DeliveryNotice verdicts={verdicts} treatmentId="levonorgestrel" collecting={true} />));
    expect(none.container.textContent).toBe('');
  });

  it('has its strings in all seven locales', () => {
    expect(Object.keys(DELIVERY_STRINGS).sort()).toEqual(['de', 'en', 'es', 'fr', 'it', 'nl', 'pt']);
  });
});
