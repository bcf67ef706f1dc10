// The renewal form against stand-in API answers (no network): the service names the missing safety
// answers, the page marks those questions and says so; each answered question loses its mark, and
// the banner goes once none is left.
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Renewal } from '../src/pages/plans';
import { page, serve, wrap } from './support/serve';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const CONSULTATION = '00000000-0000-4000-8000-0000000000c1';
const question = (key: string, text: string) => ({ question_key: key, type: 'boolean', text, required: true });
const options = {
  mode: 'pending_choice',
  pending_consultation_id: CONSULTATION,
  current: { treatment_id: 'semaglutide', dosage: '1 mg' },
  ladder: { dosages: ['0.5 mg', '1 mg', '1.7 mg'], current: '1 mg', next: '1.7 mg', held_at_max: false },
  required_steps: [{ step_id: 1, title: 'Since your last review', questions: [question('new_medicines', 'Do you take any new medicines?'), question('pregnant', 'Are you pregnant or planning a pregnancy?')] }],
  review_steps: [],
  reusable_prefill: [],
};

describe('the renewal form', () => {
  it('marks the questions the service names as missing, unmarks each once answered, and drops the banner with the last', async () => {
    const sent = serve({
      'GET /v1/users/subscriptions/renewal-options/': () => [200, options],
      'GET /v1/users/subscriptions/': () => [200, page([{ id: '00000000-0000-4000-8000-0000000000a1', category: 'weight_loss', status: 'active' }])],
      'GET /v1/users/profile/': () => [200, {}],
      'POST /v1/users/subscriptions/pending-choice/confirm/': () => [400, { code: 'renewal_answers_required', detail: 'Answers are missing.', missing_keys: ['new_medicines', 'pregnant'] }],
    });
    const { container } = render(wrap(<Renewal />));
    fireEvent.click(await screen.findByRole('button', { name: 'Confirm renewal' }));
    expect(await screen.findByText('Answer the questions marked below.')).toBeTruthy();
    const marked = () => container.querySelectorAll('fieldset.question[aria-invalid="true"]').length;
    expect(marked()).toBe(2);
    const field = (key: string) => container.querySelector<HTMLElement>(`[data-question="${key}"]`)!;

    fireEvent.click(within(field('new_medicines')).getByLabelText('No', { exact: true }));
    expect(marked()).toBe(1);
    // One question is still marked: the banner stays.
    expect(screen.queryByText('Answer the questions marked below.')).toBeTruthy();

    fireEvent.click(within(field('pregnant')).getByLabelText('No', { exact: true }));
    expect(marked()).toBe(0);
    expect(screen.queryByText('Answer the questions marked below.')).toBeNull();
    expect(sent.filter((s) => s.key === 'POST /v1/users/subscriptions/pending-choice/confirm/')).toHaveLength(1);
  });
});
