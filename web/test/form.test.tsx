// The questionnaire form rendered from the public schema: every question type, labels, visibility
// conditions, step checks and the answer array the draft endpoint receives.
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { checkStep, fromItems, holds, isVisible, toItems, visibleSteps, type Answers, type Step } from '../src/questionnaire/model';
import { QuestionField } from '../src/questionnaire/QuestionField';
import { chartGeometry } from '../src/components/WeightChart';

afterEach(cleanup);

const steps: Step[] = [
  {
    step_id: 1,
    title: 'Urgent symptoms',
    questions: [
      {
        question_key: 'urgent_symptoms',
        type: 'multiple_choice',
        required: true,
        text: 'Do you have any of these right now?',
        options: [
          { value: 'chest_pain', label: 'Chest pain' },
          { value: 'none', label: 'None of these' },
        ],
      },
    ],
  },
  {
    step_id: 2,
    title: 'Body',
    questions: [
      { question_key: 'height_cm', type: 'number', required: true, text: 'Your height', unit: 'cm', min: 120, max: 230 },
      { question_key: 'weight_kg', type: 'number', required: true, text: 'Your weight', unit: 'kg', min: 35, max: 350 },
      { question_key: 'pregnant', type: 'boolean', required: true, text: 'Are you pregnant?', visible_if: { profile: 'gender', in: ['2'] } },
      { question_key: 'bmi_note', type: 'text', required: false, text: 'Anything else about your weight?', max_length: 200, visible_if: { computed: 'bmi', gte: 30 } },
    ],
  },
  {
    step_id: 3,
    title: 'History',
    questions: [
      { question_key: 'diabetes_type', type: 'single_choice', required: true, text: 'Which type?', options: [{ value: 't1', label: 'Type 1' }, { value: 't2', label: 'Type 2' }], visible_if: { answer: 'has_diabetes', eq: true } },
      { question_key: 'last_period', type: 'date', required: false, text: 'First day of your last period', visible_if: { all: [{ profile: 'gender', in: ['2'] }, { not: { answer: 'pregnant', eq: true } }] } },
    ],
  },
];

function Harness({ step, initial = {} }: { step: Step; initial?: Answers }) {
  const [answers, setAnswers] = useState<Answers>(initial);
  return (
    <form>
      {step.questions.map((q) => (
        <QuestionField
          key={q.question_key}
          question={q}
          answers={answers}
          onChange={(k, v) => {
            const n = { ...answers };
            if (v === undefined) delete n[k];
            else n[k] = v;
            setAnswers(n);
          }}
        />
      ))}
      <output data-testid="answers">{JSON.stringify(answers)}</output>
    </form>
  );
}
const answersShown = () => JSON.parse(screen.getByTestId('answers').textContent ?? '{}');

describe('rendering each question type', () => {
  it('multiple choice: a fieldset whose legend is the question, one labelled checkbox per option', () => {
    render(<Harness step={steps[0]} />);
    const group = screen.getByRole('group', { name: /Do you have any of these/ });
    expect(group.tagName).toBe('FIELDSET');
    fireEvent.click(screen.getByLabelText('Chest pain'));
    fireEvent.click(screen.getByLabelText('None of these'));
    expect(answersShown()).toEqual({ urgent_symptoms: ['chest_pain', 'none'] });
    fireEvent.click(screen.getByLabelText('Chest pain'));
    expect(answersShown()).toEqual({ urgent_symptoms: ['none'] });
  });

  it('number: a labelled input with unit and bounds; boolean: yes/no radios', () => {
    render(<Harness step={steps[1]} />);
    const h = screen.getByLabelText(/Your height \(cm\)/) as HTMLInputElement;
    expect(h.type).toBe('number');
    expect(h.min).toBe('120');
    expect(h.max).toBe('230');
    fireEvent.change(h, { target: { value: '181' } });
    expect(answersShown()).toEqual({ height_cm: 181 });
    fireEvent.change(h, { target: { value: '' } });
    expect(answersShown()).toEqual({});
    cleanup();
    render(<Harness step={{ ...steps[1], questions: [steps[1].questions[2]] }} />);
    expect(screen.getByRole('group', { name: /Are you pregnant/ })).toBeTruthy();
    fireEvent.click(screen.getByLabelText('No'));
    expect(answersShown()).toEqual({ pregnant: false });
    fireEvent.click(screen.getByLabelText('Yes'));
    expect(answersShown()).toEqual({ pregnant: true });
  });

  it('single choice, date and text are labelled and typed', () => {
    render(<Harness step={{ step_id: 9, title: 'x', questions: [steps[2].questions[0], steps[2].questions[1], steps[1].questions[3]] }} />);
    fireEvent.click(screen.getByLabelText('Type 2'));
    const d = screen.getByLabelText('First day of your last period') as HTMLInputElement;
    expect(d.type).toBe('date');
    fireEvent.change(d, { target: { value: '2026-10-01' } });
    const t = screen.getByLabelText('Anything else about your weight?') as HTMLTextAreaElement;
    expect(t.tagName).toBe('TEXTAREA');
    expect(t.maxLength).toBe(200);
    fireEvent.change(t, { target: { value: 'hello' } });
    expect(answersShown()).toEqual({ diabetes_type: 't2', last_period: '2026-10-01', bmi_note: 'hello' });
  });

  it('shows a field error tied to the question and marks it invalid', () => {
    render(<QuestionField question={steps[1].questions[0]} answers={{ height_cm: 99 }} error="range" onChange={() => undefined} />);
    const input = screen.getByLabelText(/Your height/);
    expect(input.getAttribute('aria-invalid')).toBe('true');
    const err = screen.getByRole('alert');
    expect(err.textContent).toBe('Enter a number between 120 and 230.');
    expect(input.getAttribute('aria-describedby')).toBe(err.id);
  });
});

describe('visibility and steps', () => {
  it('evaluates profile, computed BMI, answer and combined conditions', () => {
    const q = steps[1].questions;
    expect(isVisible(q[2], {}, { gender: '2' })).toBe(true);
    expect(isVisible(q[2], {}, { gender: '1' })).toBe(false);
    expect(isVisible(q[3], { height_cm: 180, weight_kg: 97.2 }, {})).toBe(true); // BMI 30.0
    expect(isVisible(q[3], { height_cm: 180, weight_kg: 97 }, {})).toBe(false);
    expect(holds({ answer: 'x', includes_any: ['a'] }, { x: ['b', 'a'] }, {})).toBe(true);
    expect(holds({ answer: 'x', includes_none_of: ['a'] }, { x: [] }, {})).toBe(false);
    expect(holds({ computed: 'age', gte: 18 }, {}, { date_of_birth: '2000-01-01' })).toBe(true);
    expect(holds({ any: [{ answer: 'missing', eq: true }, { profile: 'country_of_residence', in: ['DEU'] }] }, {}, { country_of_residence: 'DEU' })).toBe(true);
  });

  it('drops steps whose questions are all hidden', () => {
    expect(visibleSteps(steps, {}, { gender: '1' }).map((s) => s.step_id)).toEqual([1, 2]);
    expect(visibleSteps(steps, {}, { gender: '2' }).map((s) => s.step_id)).toEqual([1, 2, 3]);
  });

  it('checks required and bounded answers of the visible questions only', () => {
    expect(checkStep(steps[1], {}, { gender: '1' })).toEqual({ height_cm: 'required', weight_kg: 'required' });
    expect(checkStep(steps[1], { height_cm: 500, weight_kg: 80 }, { gender: '2' })).toEqual({ height_cm: 'range', pregnant: 'required' });
    expect(checkStep(steps[1], { height_cm: 170, weight_kg: 80, pregnant: false }, { gender: '2' })).toEqual({});
  });

  it('turns answers into the full answer array and back (hidden answers are not sent)', () => {
    const answers: Answers = { urgent_symptoms: ['none'], height_cm: 180, weight_kg: 80, pregnant: true };
    const items = toItems(steps, answers, { gender: '1' });
    expect(items).toEqual([
      { step_id: 1, question_key: 'urgent_symptoms', values: { none: true } },
      { step_id: 2, question_key: 'height_cm', value: 180 },
      { step_id: 2, question_key: 'weight_kg', value: 80 },
    ]);
    expect(fromItems(steps, [...items, { step_id: 7, question_key: 'unknown', value: 1 }, { step_id: 1, question_key: 'urgent_symptoms', values: { a: true, b: false } }])).toEqual({
      urgent_symptoms: ['a'],
      height_cm: 180,
      weight_kg: 80,
    });
  });
});

describe('weight chart geometry', () => {
  it('orders points by date and maps the heaviest to the top', () => {
    const g = chartGeometry([
      { logged_on: '2026-11-10', weight_kg: 100 },
      { logged_on: '2026-11-01', weight_kg: 104 },
      { logged_on: '2026-11-20', weight_kg: 98 },
    ]);
    expect(g.sorted.map((p) => p.logged_on)).toEqual(['2026-11-01', '2026-11-10', '2026-11-20']);
    expect(g.coords[0].y).toBeLessThan(g.coords[2].y);
    expect(g.coords[0].x).toBeLessThan(g.coords[1].x);
  });
});
