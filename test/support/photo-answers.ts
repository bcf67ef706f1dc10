// The photos a questionnaire's required photo questions need (hair loss since version 3), uploaded for
// the patient over HTTP and added to a test's answers, so tests about other rules submit as before. The
// same photos are reused for a patient's later submissions of the category (a photo answer is never a
// deciding answer, and unchanged photos keep the comparisons of earlier submissions as they were).
import sharp from 'sharp';
import { currentVersion } from '../../src/modules/questionnaires/index.ts';
import { call, type TestContext } from './harness.ts';
import { multipart } from './multipart.ts';

const uploaded = new Map<string, Record<string, string>>();

export async function withPhotos(ctx: Pick<TestContext, 'app'>, token: string, slug: string, data: unknown[]): Promise<unknown[]> {
  const answered = new Set(data.map((a) => (a as { question_key?: string }).question_key));
  const out = [...data];
  for (const step of currentVersion(slug)?.steps ?? []) {
    for (const q of step.questions) {
      if (q.type !== 'photo' || !q.required || answered.has(q.question_key)) continue;
      const cacheKey = `${token}/${slug}/${q.question_key}`;
      let values = uploaded.get(cacheKey);
      if (!values) {
        values = {};
        for (let i = 0; i < (q.min_photos ?? 1); i++) {
          const data = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#806040' } }).png().toBuffer();
          const res = await call(ctx, 'POST', `/v1/users/questionnaires/${slug}/photos/`, { token, ...multipart({ question_key: q.question_key }, { name: 'photo.png', type: 'image/png', data }) });
          if (res.status !== 201) throw new Error(`photo upload: ${res.status} ${res.text}`);
          values[res.body.id as string] = q.views![i % q.views!.length]!.value;
        }
        uploaded.set(cacheKey, values);
      }
      out.push({ step_id: step.step_id, question_key: q.question_key, values });
    }
  }
  return out;
}
