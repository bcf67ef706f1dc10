// The retention of clinical photos (docs/photos.md, "Retention"): a photo uploaded for a questionnaire
// that no consultation shows is deleted DRAFT_PHOTO_RETENTION_DAYS after its upload by the scheduler's
// sweep (run here by moving the sandbox test clock through the back office, which runs the due jobs);
// a photo a consultation shows stays, whatever its age, and so does a younger draft photo.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advanceTestClock, freshToken, paySandbox } from './billing-fixtures.ts';
import { patientWithPassword } from './mcp-support.ts';
import { FIXTURES } from './questionnaires.fixtures.ts';
import { call, createTestContext, newStaff, type Patient, type TestContext } from './support/harness.ts';
import { multipart } from './support/multipart.ts';

const RETENTION_DAYS = 20;
let ctx: TestContext;
let admin: Patient;
beforeAll(async () => {
  ctx = await createTestContext({ DRAFT_PHOTO_RETENTION_DAYS: String(RETENTION_DAYS) });
  admin = await newStaff(ctx, 'backoffice_admin');
});
afterAll(async () => ctx?.close());

const HAIR = '/v1/users/questionnaires/hair_growth';
const png = () => sharp({ create: { width: 40, height: 30, channels: 3, background: '#336699' } }).png().toBuffer();

async function photoId(p: Patient): Promise<string> {
  const res = await call(ctx, 'POST', `${HAIR}/photos/`, { token: await freshToken(ctx, p), ...multipart({ question_key: 'hair_photos' }, { name: 'me.png', type: 'image/png', data: await png() }) });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

const photoAnswer = (views: Record<string, string>) => ({ step_id: 3, question_key: 'hair_photos', values: views });
const saveDraft = async (p: Patient, data: unknown[]) => call(ctx, 'PATCH', `${HAIR}/progress/`, { token: await freshToken(ctx, p), json: { data } });

/** The photo's bytes as its patient asks for them (a token minted now: the clock moves). */
const status = async (p: Patient, id: string) => (await ctx.app.inject({ method: 'GET', url: `/v1/users/photos/${id}/`, headers: { authorization: `Bearer ${await freshToken(ctx, p)}` } })).statusCode;
const blobs = async (id: string) =>
  (await ctx.db.query('select 1 from clinical_photo_blobs b join clinical_photos p on p.storage_key = b.storage_key where p.id = $1', [id])).length;

describe('draft photo retention', () => {
  it('is a scheduled job', () => {
    expect(ctx.deps.scheduler.stats().map((s) => s.name)).toContain('photos.retention.draft-photos');
    expect(ctx.config.DRAFT_PHOTO_RETENTION_DAYS).toBe(RETENTION_DAYS);
  });

  it(`deletes a questionnaire photo no consultation shows after the retention period; photos a consultation shows stay`, async () => {
    // A patient whose two photos were submitted, paid and became a consultation's images, and who
    // then added a third to the open consultation.
    const treated = await patientWithPassword(ctx);
    const attached = [await photoId(treated), await photoId(treated)];
    expect((await saveDraft(treated, [...FIXTURES.hair_growth.eligible, photoAnswer({ [attached[0]!]: 'hairline', [attached[1]!]: 'crown' })])).status).toBe(200);
    expect((await call(ctx, 'POST', `${HAIR}/submit/`, { token: await freshToken(ctx, treated) })).status).toBe(200);
    const { session } = await paySandbox(ctx, treated, { category: 'hair_growth', plan: 'one_off' });
    const consultationId = session.consultation_id as string;
    const added = await call(ctx, 'POST', `/v1/users/consultations/${consultationId}/images/`, {
      token: await freshToken(ctx, treated),
      ...multipart({}, { name: 'later.png', type: 'image/png', data: await png() }),
    });
    expect(added.status).toBe(201);
    // The same patient's photo of a draft that was never submitted (a later attempt).
    const treatedDraft = await photoId(treated);

    // Another patient saved a draft with a photo and never submitted it.
    const drafter = await patientWithPassword(ctx);
    const draft = await photoId(drafter);
    expect((await saveDraft(drafter, [photoAnswer({ [draft]: 'hairline' })])).status).toBe(200);

    // One day short of the period: nothing is deleted.
    await advanceTestClock(ctx, admin, RETENTION_DAYS - 1);
    for (const [p, id] of [[drafter, draft], [treated, treatedDraft], [treated, attached[0]!]] as const) expect(await status(p, id)).toBe(200);
    // A photo uploaded now is younger than the period at the next sweep.
    const young = await photoId(drafter);

    await advanceTestClock(ctx, admin, 2);
    expect(await status(drafter, draft)).toBe(404);
    expect(await status(treated, treatedDraft)).toBe(404);
    expect(await blobs(draft)).toBe(0);
    expect((await ctx.db.query('select 1 from clinical_photos where id = any($1::uuid[])', [[draft, treatedDraft]])).length).toBe(0);
    // Shown by the consultation (submitted, or added later): kept, bytes and all.
    for (const id of [...attached, added.body.id as string]) {
      expect(await status(treated, id)).toBe(200);
      expect(await blobs(id)).toBe(1);
    }
    expect(await status(drafter, young)).toBe(200);
    const c = await call(ctx, 'GET', `/v1/users/consultations/${consultationId}/`, { token: await freshToken(ctx, treated) });
    expect((c.body.images as { id: string }[]).map((i) => i.id).sort()).toEqual([...attached, added.body.id as string].sort());

    // The draft still names the deleted photo: saving it again is refused, like any unknown photo.
    const again = await saveDraft(drafter, [photoAnswer({ [draft]: 'hairline' })]);
    expect(again.status).toBe(400);
  });
});
