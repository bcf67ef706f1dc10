// The emergency safety net over HTTP: patient messages and side-effect reports flag emergency wording
// (all seven locales, the side-effect red flags) and answer with the country's medical emergency
// number first (Norway 113, France 15, Switzerland 144).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, seedPatient, type Patient, type TestContext, firstRow } from './support/harness.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => ctx?.close());

const J = '/v1/users/journal';
const threadOf = async (p: Patient) => (await call(ctx, 'GET', '/v1/users/conversations/', { token: p.access })).body.results[0].id as string;
const send = async (p: Patient, content: string) => call(ctx, 'POST', `/v1/users/conversations/${await threadOf(p)}/messages/`, { token: p.access, json: { content } });

/** A patient with an approved weight-loss consultation decided now (the journal needs an active plan). */
async function onPlan(columns: Record<string, unknown> = {}): Promise<Patient> {
  const p = await seedPatient(ctx, columns);
  await ctx.db.query(
    "insert into consultations (user_id, category, status, plan, supply_days, decided_at) values ($1, 'weight_loss', 'approved', 'one_off', 28, $2)",
    [p.id, ctx.deps.clock.now()],
  );
  return p;
}
const report = (p: Patient, json: Record<string, unknown>) => call(ctx, 'POST', `${J}/side-effects/`, { token: p.access, json });

describe('messages', () => {
  it('answers a current flag dated by the treatment start with the notice: "started Ozempic 2 months ago, since yesterday severe stomach pain to my back"', async () => {
    const p = await seedPatient(ctx, { country_of_residence: 'DEU', locale: 'de' });
    const r = await send(p, 'Ich habe vor 2 Monaten mit Ozempic angefangen, seit gestern heftige Bauchschmerzen bis in den Rücken und Erbrechen');
    expect(r.body.emergency).toMatchObject({ tier: 'emergency', number: '112', codes: ['pancreatitis'] });
  });

  it('answers urgent wording in a message with "a doctor today" and the out-of-hours number (Germany 116117)', async () => {
    const p = await seedPatient(ctx, { country_of_residence: 'DEU', locale: 'de' });
    const r = await send(p, 'meine Augen sind gelb und der Urin ganz dunkel seit dem Antibiotikum');
    expect(r.body.emergency).toMatchObject({ tier: 'urgent', codes: expect.arrayContaining(['liver']) });
    expect(r.body.emergency.message).toContain('116117');
    expect(r.body.emergency.message).not.toContain('rufen Sie jetzt');
  });

  it('gives no notice for a blocked nose or a negated thought of suicide in Italian, French or Dutch', async () => {
    for (const [locale, text] of [['en', 'blocked nose, can’t breathe through it'], ['it', 'non ho mai pensato al suicidio'], ['fr', 'je ne pense pas au suicide'], ['nl', 'ik denk niet aan zelfmoord']]) {
      const p = await seedPatient(ctx, { country_of_residence: 'NLD', locale });
      const r = await send(p, text!);
      expect(r.body.emergency, text).toBeNull();
    }
  });

  it('answers "Ich habe Suizidgedanken" with the notice, delivers and flags the message', async () => {
    const p = await seedPatient(ctx, { country_of_residence: 'DEU', locale: 'de' });
    const r = await send(p, 'Ich habe Suizidgedanken');
    expect(r.status).toBe(201);
    // The one emergency shape (EmergencyNotice): the detector's categories as codes.
    expect(r.body.emergency).toEqual({
      number: '112', numbers: ['112'], non_emergency: [{ number: '116117', label: expect.any(String) }], codes: ['suicidal'], message: expect.stringContaining('rufen Sie jetzt 112 an'),
      tier: 'emergency', crisis_lines: [{ number: '0800 111 0 111', label: 'TelefonSeelsorge' }],
    });
    expect(r.body.emergency.message).toContain('0800 111 0 111 (TelefonSeelsorge)');
    expect(r.body.last_message.content).toBe('Ich habe Suizidgedanken');
    const row = firstRow(await ctx.db.query('select flagged_emergency from messages where sender_id = $1', [p.id]));
    expect(row.flagged_emergency).toBe(true);
  });

  it('flags the phrasings that were missed, whatever the patient’s locale, with the medical number of the country', async () => {
    const cases: [string, string, string, string][] = [
      ['NOR', 'en', 'shortness of breath since this morning', '113'],
      ['FRA', 'fr', 'j’ai mal à la poitrine', '15'],
      ['CHE', 'de', 'Luftnot', '144'],
      ['ESP', 'es', 'me duele el pecho', '112'],
      ['PRT', 'pt', 'falta de ar', '112'],
      ['NLD', 'en', 'zelfmoordgedachten', '112'],
      ['GBR', 'en', 'i cant breath', '999'],
    ];
    for (const [country, locale, text, number] of cases) {
      const p = await seedPatient(ctx, { country_of_residence: country, locale });
      const r = await send(p, text);
      expect(r.status, text).toBe(201);
      expect(r.body.emergency?.number, text).toBe(number);
    }
  });

  it('shows Norway 113, France 15 and Switzerland 144 first, then 112, in the notice text', async () => {
    const cases: [string, string, string][] = [
      ['NOR', 'en', 'call 113 (or 112) now'],
      ['FRA', 'fr', 'appelez le 15 (ou 112) maintenant'],
      ['CHE', 'de', 'rufen Sie jetzt 144 (oder 112) an'],
    ];
    for (const [country, locale, text] of cases) {
      const p = await seedPatient(ctx, { country_of_residence: country, locale });
      const r = await send(p, 'I think I am having a heart attack');
      expect(r.body.emergency.message, country).toContain(text);
    }
  });

  it('leaves a benign look-alike unflagged', async () => {
    const p = await seedPatient(ctx);
    for (const text of ['I could kill for a coffee', 'the cardiologist said my heart is fine']) {
      const r = await send(p, text);
      expect(r.status).toBe(201);
      expect(r.body.emergency, text).toBeNull();
    }
  });
});

describe('side-effect reports', () => {
  it('flags the category red flags even when reported as mild or moderate, in every locale', async () => {
    const cases: [string, string, Record<string, unknown>][] = [
      ['en', 'pancreatitis', { symptom: 'stomach pain', severity: 'moderate', note: 'goes through to my back, vomiting since last night' }],
      ['de', 'priapism', { symptom: 'Erektion seit 5 Stunden', severity: 'mild' }],
      ['fr', 'vision', { symptom: 'perte soudaine de la vue', severity: 'moderate' }],
      ['es', 'fainting', { symptom: 'mareo', severity: 'mild', note: 'me desmayé en la cocina' }],
      ['it', 'pancreatitis', { symptom: 'dolore addominale', severity: 'moderate', note: 'va fino alla schiena' }],
      ['nl', 'fainting', { symptom: 'flauwgevallen', severity: 'mild' }],
      ['pt', 'priapism', { symptom: 'ereção há mais de 4 horas', severity: 'moderate' }],
      ['en', 'syncope', { symptom: 'syncope', severity: 'mild' }],
    ];
    for (const [locale, name, json] of cases) {
      const p = await onPlan({ country_of_residence: 'FRA', locale });
      const r = await report(p, json);
      expect(r.status, name).toBe(201);
      expect(r.body.flagged, name).toBe(true);
      expect(r.body.emergency, name).toMatchObject({ number: '15', numbers: ['15', '112'], message: expect.stringContaining('15 (') });
      expect(r.body.emergency.codes.length, name).toBeGreaterThan(0);
    }
  });

  it('flags a severe report and names the report (not a message) in the notice', async () => {
    const p = await onPlan({ country_of_residence: 'NOR', locale: 'en' });
    const r = await report(p, { symptom: 'headache', severity: 'severe' });
    expect(r.body).toMatchObject({ flagged: true, emergency: { number: '113' } });
    expect(r.body.emergency.message).toContain('call 113 (or 112) now');
    expect(r.body.emergency.message).toContain('Your report has been passed to the medical team.');
  });

  it('does not flag an ordinary mild side effect', async () => {
    const p = await onPlan({ country_of_residence: 'CHE', locale: 'de' });
    for (const json of [{ symptom: 'leichte Übelkeit', severity: 'mild' }, { symptom: 'Rückenschmerzen', severity: 'moderate', note: 'vom Sitzen' }]) {
      const r = await report(p, json);
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ flagged: false, emergency: null });
    }
  });
});
