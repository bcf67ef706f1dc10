// Over HTTP: every patient free text goes through the one detector (docs/red-flags.md).
// Journal notes, weight and injection notes and side-effect reports answer with the one emergency
// shape and put a flag on the clinicians' red-flag desk, which a person works through and resolves;
// negated mentions raise nothing; past history is a desk flag without the notice; side effects are
// accepted for every treatment the patient was prescribed; dehydration on a GLP-1 at moderate
// severity is flagged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, firstRow, newStaff, seedPatient, type Patient, type TestContext } from './support/harness.ts';

let ctx: TestContext;
let doctor: Patient;
beforeAll(async () => {
  ctx = await createTestContext();
  doctor = await newStaff(ctx, 'doctor');
});
afterAll(async () => ctx?.close());

const J = '/v1/users/journal';
const DESK = '/v1/clinician/red-flags/';

/** A patient with an approved consultation of the category, decided `daysAgo` days ago (28-day supply). */
async function prescribed(category: string, columns: Record<string, unknown> = {}, daysAgo = 0): Promise<Patient> {
  const p = await seedPatient(ctx, { country_of_residence: 'DEU', locale: 'de', ...columns });
  await ctx.db.query(
    "insert into consultations (user_id, category, status, plan, supply_days, decided_at) values ($1, $2, 'approved', 'one_off', 28, $3)",
    [p.id, category, new Date(ctx.deps.clock.now().getTime() - daysAgo * 86_400_000)],
  );
  return p;
}

/** The patient's flags as the desk shows them (every status). */
async function deskFlags(p: Patient) {
  const rows: any[] = [];
  for (let offset = 0; ; offset += 100) {
    const r = await call(ctx, 'GET', `${DESK}?status=all&limit=100&offset=${offset}`, { token: doctor.access });
    expect(r.status).toBe(200);
    rows.push(...r.body.results);
    if (!r.body.next) break;
  }
  return rows.filter((f) => f.patient.id === p.id);
}

const NOTICE_KEYS = ['codes', 'crisis_lines', 'message', 'non_emergency', 'number', 'numbers', 'tier'];

describe('journal notes are read', () => {
  it('answers "I want to kill myself" in a note with the notice and puts it on the desk, where a clinician resolves it', async () => {
    const p = await prescribed('weight_loss', { country_of_residence: 'AUT', locale: 'en' });
    const r = await call(ctx, 'POST', `${J}/notes/`, { token: p.access, json: { content: 'I want to kill myself' } });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body.emergency).sort()).toEqual(NOTICE_KEYS);
    expect(r.body.emergency).toMatchObject({ number: '144', numbers: ['144', '112'], codes: ['suicidal'], tier: 'emergency', crisis_lines: [{ number: '142', label: 'TelefonSeelsorge' }] });
    expect(r.body.emergency.message).toContain('call 144 (or 112) now');
    // Suicidal wording also names the country's crisis line (Austria: TelefonSeelsorge 142).
    expect(r.body.emergency.message).toContain('142 (TelefonSeelsorge)');
    // True now: the note is on the desk.
    expect(r.body.emergency.message).toContain('Your note has been passed to the medical team.');

    const [flag, ...more] = await deskFlags(p);
    expect(more).toEqual([]);
    expect(flag).toMatchObject({ source: 'journal_note', source_id: r.body.id, kind: 'emergency', tier: 'emergency', categories: ['suicidal'], excerpt: 'I want to kill myself', resolved_at: null, resolution: null });
    // Due within 30 minutes of being raised, and the desk sees why it was raised.
    expect(Date.parse(flag.due_at) - Date.parse(flag.created_at)).toBe(30 * 60_000);
    expect(flag.evidence).toEqual([{ category: 'suicidal', by: 'rule', evidence: ['kill myself'] }]);
    // Open flags are the default view, emergencies first.
    const open = await call(ctx, 'GET', DESK, { token: doctor.access });
    expect(open.body.results.some((f: any) => f.id === flag.id)).toBe(true);

    const resolved = await call(ctx, 'POST', `${DESK}${flag.id}/resolve/`, { token: doctor.access, json: { resolution: 'Called the patient; crisis team involved.' } });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({ id: flag.id, resolved_by: doctor.id, resolution: 'Called the patient; crisis team involved.' });
    expect(resolved.body.resolved_at).toEqual(expect.any(String));
    const again = await call(ctx, 'POST', `${DESK}${flag.id}/resolve/`, { token: doctor.access, json: { resolution: 'again' } });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ detail: 'This red flag has already been resolved.', code: 'red_flag_already_resolved' });
    const audit = firstRow(await ctx.db.query("select actor_id from audit_log where action = 'red_flag.resolved' and subject_id = $1", [flag.id]));
    expect(audit.actor_id).toBe(doctor.id);
  });

  it('refuses the desk to patients, a blank resolution, and an unknown flag', async () => {
    const p = await prescribed('weight_loss');
    expect((await call(ctx, 'GET', DESK, { token: p.access })).status).toBe(403);
    const r = await call(ctx, 'POST', `${J}/notes/`, { token: p.access, json: { content: 'Ich will nicht mehr leben' } });
    const [flag] = await deskFlags(p);
    expect(r.body.emergency.codes).toEqual(['suicidal']);
    expect((await call(ctx, 'POST', `${DESK}${flag.id}/resolve/`, { token: p.access, json: { resolution: 'x' } })).status).toBe(403);
    const blank = await call(ctx, 'POST', `${DESK}${flag.id}/resolve/`, { token: doctor.access, json: { resolution: '  ' } });
    expect(blank.status).toBe(400);
    expect(blank.body).toEqual({ resolution: ['This field may not be blank.'] });
    const unknown = await call(ctx, 'POST', `${DESK}00000000-0000-4000-8000-000000000000/resolve/`, { token: doctor.access, json: { resolution: 'x' } });
    expect(unknown.status).toBe(404);
  });

  it('reads weight notes, injection notes and edited notes', async () => {
    const p = await prescribed('weight_loss', { country_of_residence: 'FRA', locale: 'fr' });
    const w = await call(ctx, 'POST', `${J}/weight-entries/`, { token: p.access, json: { weight_kg: 91, note: 'je n arrive plus à respirer' } });
    expect(w.status).toBe(201);
    expect(w.body.emergency).toMatchObject({ number: '15', codes: ['breathing'] });
    const i = await call(ctx, 'POST', `${J}/injections/`, { token: p.access, json: { dose: '0.5 mg', injected_at: '2026-01-05T08:00:00+01:00', note: 'I took 10 pens at once' } });
    expect(i.status).toBe(201);
    expect(i.body.emergency.codes).toEqual(['overdose']);
    const n = await call(ctx, 'POST', `${J}/notes/`, { token: p.access, json: { content: 'Bonne semaine' } });
    expect(n.body.emergency).toBeNull();
    const edited = await call(ctx, 'PATCH', `${J}/notes/${n.body.id}/`, { token: p.access, json: { content: 'douleur violente au testicule gauche' } });
    expect(edited.status).toBe(200);
    expect(edited.body.emergency.codes).toEqual(['testicular_pain']);
    const sources = (await deskFlags(p)).map((f) => [f.source, f.kind, f.categories]);
    expect(sources).toEqual(expect.arrayContaining([['weight_entry', 'emergency', ['breathing']], ['injection', 'emergency', ['overdose']], ['journal_note', 'emergency', ['testicular_pain']]]));
    expect(sources).toHaveLength(3);
  });

  it('answers a negation with nothing, and past history with a desk flag but no notice', async () => {
    const p = await prescribed('weight_loss', { country_of_residence: 'DEU', locale: 'de' });
    const no = await call(ctx, 'POST', `${J}/notes/`, { token: p.access, json: { content: 'Keine Brustschmerzen, keine Atemnot.' } });
    expect(no.body.emergency).toBeNull();
    expect(await deskFlags(p)).toEqual([]);
    const past = await call(ctx, 'POST', `${J}/notes/`, { token: p.access, json: { content: 'Ich hatte letztes Jahr Brustschmerzen.' } });
    expect(past.status).toBe(201);
    expect(past.body.emergency).toBeNull();
    expect(await deskFlags(p)).toEqual([expect.objectContaining({ kind: 'history', categories: ['chest_pain'], source: 'journal_note' })]);
  });
});

describe('messages', () => {
  it('does not raise "No chest pain" or "I had chest pain last year"; the history goes to the desk, the message is not flagged', async () => {
    const p = await seedPatient(ctx, { country_of_residence: 'DEU', locale: 'en' });
    const thread = (await call(ctx, 'GET', '/v1/users/conversations/', { token: p.access })).body.results[0].id;
    const no = await call(ctx, 'POST', `/v1/users/conversations/${thread}/messages/`, { token: p.access, json: { content: 'No chest pain' } });
    expect(no.status).toBe(201);
    expect(no.body.emergency).toBeNull();
    const past = await call(ctx, 'POST', `/v1/users/conversations/${thread}/messages/`, { token: p.access, json: { content: 'I had chest pain last year' } });
    expect(past.body.emergency).toBeNull();
    const rows = await ctx.db.query('select flagged_emergency from messages where sender_id = $1', [p.id]);
    expect(rows.map((r) => r.flagged_emergency)).toEqual([false, false]);
    expect(await deskFlags(p)).toEqual([expect.objectContaining({ kind: 'history', source: 'message', source_id: thread, categories: ['chest_pain'] })]);
    const now = await call(ctx, 'POST', `/v1/users/conversations/${thread}/messages/`, { token: p.access, json: { content: 'I have crushing chest pain right now' } });
    expect(now.body.emergency).toMatchObject({ number: '112', numbers: ['112'], codes: ['chest_pain'] });
  });
});

describe('side-effect reports', () => {
  it('are accepted for a one-off medicine prescribed long ago (sildenafil, emergency contraception, antibiotics)', async () => {
    for (const category of ['sexual_health', 'emergency_contraception', 'urinary_tract_infection', 'premature_ejaculation']) {
      const p = await prescribed(category, {}, 200);
      // The journal itself needs an active plan: this one has none.
      expect((await call(ctx, 'GET', `${J}/notes/`, { token: p.access })).body.code).toBe('active_treatment_plan_required');
      const r = await call(ctx, 'POST', `${J}/side-effects/`, { token: p.access, json: { symptom: 'headache', severity: 'mild' } });
      expect(r.status, category).toBe(201);
      expect(r.body).toMatchObject({ symptom: 'headache', flagged: false, emergency: null });
      const list = await call(ctx, 'GET', `${J}/side-effects/`, { token: p.access });
      expect(list.body.count, category).toBe(1);
    }
  });

  it('flags dehydration at moderate severity on a GLP-1 (no notice), not on another medicine, and severe with the notice', async () => {
    const glp1 = await prescribed('weight_loss', { country_of_residence: 'NLD', locale: 'nl' });
    const r = await call(ctx, 'POST', `${J}/side-effects/`, { token: glp1.access, json: { symptom: 'uitgedroogd na braken', severity: 'moderate' } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ flagged: true, emergency: null });
    expect(await deskFlags(glp1)).toEqual([expect.objectContaining({ source: 'side_effect', source_id: r.body.id, kind: 'review', categories: ['glp1_dehydration'] })]);
    const mild = await call(ctx, 'POST', `${J}/side-effects/`, { token: glp1.access, json: { symptom: 'a bit dehydrated', severity: 'mild' } });
    expect(mild.body.flagged).toBe(false);

    const other = await prescribed('sexual_health');
    const o = await call(ctx, 'POST', `${J}/side-effects/`, { token: other.access, json: { symptom: 'dehydrated', severity: 'moderate' } });
    expect(o.body).toMatchObject({ flagged: false, emergency: null });

    const severe = await call(ctx, 'POST', `${J}/side-effects/`, { token: glp1.access, json: { symptom: 'dehydrated, dizzy', severity: 'severe' } });
    expect(severe.body.flagged).toBe(true);
    expect(severe.body.emergency).toMatchObject({ number: '112', codes: ['severe_side_effect', 'glp1_dehydration'] });
    expect(severe.body.emergency.message).toContain('Uw melding is doorgestuurd naar het medische team.');
  });
});

describe('tiers', () => {
  it('answers an urgent red flag (gallbladder on a GLP-1) with "a doctor today", the out-of-hours number, and a desk flag due the same day', async () => {
    const p = await prescribed('weight_loss', { country_of_residence: 'DEU', locale: 'en' });
    const r = await call(ctx, 'POST', `${J}/notes/`, { token: p.access, json: { content: 'pain under my right ribs since last night and a fever' } });
    expect(r.status).toBe(201);
    expect(r.body.emergency).toMatchObject({ tier: 'urgent', codes: ['gallbladder'], non_emergency: [{ number: '116117', label: expect.any(String) }], crisis_lines: [] });
    expect(r.body.emergency.message).toContain('needs a doctor today');
    expect(r.body.emergency.message).toContain('call 116117 out of hours');
    expect(r.body.emergency.message).not.toContain('call 112 now');
    const [flag, ...more] = await deskFlags(p);
    expect(more).toEqual([]);
    expect(flag).toMatchObject({ kind: 'urgent', tier: 'urgent', categories: ['gallbladder'] });
    expect(Date.parse(flag.due_at) - Date.parse(flag.created_at)).toBe(4 * 60 * 60_000);
    // The emergency flags come before the urgent ones on the desk.
    const emergency = await prescribed('weight_loss', { country_of_residence: 'DEU', locale: 'en' });
    await call(ctx, 'POST', `${J}/notes/`, { token: emergency.access, json: { content: 'crushing chest pain right now' } });
    const open = (await call(ctx, 'GET', `${DESK}?limit=100`, { token: doctor.access })).body.results as { kind: string }[];
    const kinds = open.map((f) => f.kind);
    expect(kinds.lastIndexOf('emergency')).toBeLessThan(kinds.indexOf('urgent'));
  });

  it('names the crisis line of the country for self-harm, in the patient’s language (UK: Samaritans 116 123)', async () => {
    const p = await prescribed('hair_growth', { country_of_residence: 'GBR', locale: 'en' });
    const r = await call(ctx, 'POST', `${J}/notes/`, { token: p.access, json: { content: 'I started cutting myself again' } });
    expect(r.body.emergency).toMatchObject({ tier: 'emergency', number: '999', codes: ['self_harm'], crisis_lines: [{ number: '116 123', label: 'Samaritans' }] });
    expect(r.body.emergency.message).toContain('116 123 (Samaritans)');
    const fr = await prescribed('hair_growth', { country_of_residence: 'FRA', locale: 'fr' });
    const f = await call(ctx, 'POST', `${J}/notes/`, { token: fr.access, json: { content: 'je garde mes cachets de côté, j’ai écrit une lettre d’adieu' } });
    expect(f.body.emergency).toMatchObject({ tier: 'emergency', number: '15', crisis_lines: [{ number: '3114', label: expect.any(String) }] });
    expect(f.body.emergency.message).toContain('3114');
  });

  it('files family history and hypothetical questions without the emergency notice', async () => {
    const p = await prescribed('weight_loss', { country_of_residence: 'DEU', locale: 'en' });
    const family = await call(ctx, 'POST', `${J}/notes/`, { token: p.access, json: { content: 'my father had pancreatitis, may I take Ozempic?' } });
    expect(family.body.emergency).toBeNull();
    const question = await call(ctx, 'POST', `${J}/notes/`, { token: p.access, json: { content: 'what if an erection lasts more than 4 hours?' } });
    expect(question.body.emergency).toBeNull();
    const flags = await deskFlags(p);
    expect(flags.map((f) => [f.kind, f.categories])).toEqual([['history', ['pancreatitis']]]);
  });
});
