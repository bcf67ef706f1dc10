// Clinical photos in the web app against stand-in API answers: the questionnaire's photo question
// (camera or file, sent at once, thumbnail, removal), the desk's side-by-side views, and the answer
// items the draft sends.
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { I18nProvider, makeI18n } from '../src/i18n';
import { DeskPhotos } from '../src/features/photos/DeskPhotos';
import { PhotoQuestionField } from '../src/features/photos/PhotoQuestionField';
import { checkStep, fromItems, toItems, type Step } from '../src/questionnaire/model';

const wrap = (node: React.ReactNode) => <I18nProvider value={makeI18n('en')}>{node}</I18nProvider>;

const question = {
  question_key: 'hair_photos',
  type: 'photo',
  required: true,
  text: 'Photos of your hair',
  views: [
    { value: 'hairline', label: 'Hairline (front)', hint: 'Face the camera.' },
    { value: 'crown', label: 'Crown (top of the head)', hint: 'From above.' },
  ],
  min_photos: 2,
  max_photos: 4,
};

let sent: { method: string; path: string; body: unknown }[] = [];
beforeEach(() => {
  sent = [];
  vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: () => 'blob:photo', revokeObjectURL: () => undefined }));
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: Request | string, init?: RequestInit) => {
      const url = new URL(typeof input === 'string' ? input : input.url, 'http://localhost');
      const method = typeof input === 'string' ? (init?.method ?? 'GET') : input.method;
      sent.push({ method, path: url.pathname, body: init?.body });
      if (method === 'POST') return new Response(JSON.stringify({ id: 'p-new', url: `http://api.test/v1/users/photos/p-new/`, created_at: '2026-12-02T10:00:00Z' }), { status: 201, headers: { 'content-type': 'application/json' } });
      return new Response(new Blob([new Uint8Array([0xff, 0xd8, 0xff])], { type: 'image/jpeg' }), { status: 200 });
    }),
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('the photo question', () => {
  it('offers the camera and the files for each view, sends a photo at once and adds it to the answer', async () => {
    const onChange = vi.fn();
    const { container } = render(wrap(<PhotoQuestionField slug="hair_growth" question={question} value={{}} onChange={onChange} />));
    const cameras = container.querySelectorAll('input[type=file][capture=environment]');
    expect(cameras).toHaveLength(2);
    for (const c of cameras) expect(c.getAttribute('accept')).toBe('image/*');
    expect(container.querySelectorAll('input[type=file]:not([capture])')).toHaveLength(2);
    expect(screen.getByText('0 of 4 photos (at least 2)')).toBeTruthy();
    const file = new File([new Uint8Array([1, 2, 3])], 'IMG_1.HEIC', { type: 'image/heic' });
    fireEvent.change(cameras[1]!, { target: { files: [file] } });
    await waitFor(() => expect(onChange).toHaveBeenCalledWith('hair_photos', { 'p-new': 'crown' }));
    const upload = sent.find((s) => s.method === 'POST')!;
    expect(upload.path).toBe('/v1/users/questionnaires/hair_growth/photos/');
    const form = upload.body as FormData;
    expect(form.get('question_key')).toBe('hair_photos');
    expect((form.get('file') as File).name).toBe('IMG_1.HEIC');
  });

  it('shows the photos taken as thumbnails and removes one', async () => {
    const onChange = vi.fn();
    render(wrap(<PhotoQuestionField slug="hair_growth" question={question} value={{ a: 'hairline', b: 'crown' }} onChange={onChange} />));
    await waitFor(() => expect(screen.getAllByRole('img')).toHaveLength(2));
    expect(screen.getByRole('img', { name: 'Photo: Crown (top of the head)' })).toBeTruthy();
    expect(sent.filter((s) => s.method === 'GET').map((s) => s.path).sort()).toEqual(['/v1/users/photos/a/', '/v1/users/photos/b/']);
    fireEvent.click(screen.getByRole('button', { name: 'Remove Photo: Hairline (front)' }));
    expect(onChange).toHaveBeenCalledWith('hair_photos', { b: 'crown' });
  });

  it('answers with {photo id: view}, reads them back, and needs the minimum before the step is done', () => {
    const steps = [{ step_id: 3, title: 'Photos', questions: [question] }] as unknown as Step[];
    expect(toItems(steps, { hair_photos: { a: 'hairline', b: 'crown' } }, {})).toEqual([{ step_id: 3, question_key: 'hair_photos', values: { a: 'hairline', b: 'crown' } }]);
    expect(fromItems(steps, [{ step_id: 3, question_key: 'hair_photos', values: { a: 'hairline' } }])).toEqual({ hair_photos: { a: 'hairline' } });
    expect(checkStep(steps[0]!, { hair_photos: { a: 'hairline' } }, {})).toEqual({ hair_photos: 'required' });
    expect(checkStep(steps[0]!, { hair_photos: { a: 'hairline', b: 'crown' } }, {})).toEqual({});
  });
});

describe('the desk', () => {
  it('shows each view large, beside the same view of the earlier consultation', async () => {
    const photo = (id: string, view: string | null, label: string | null) => ({ id, url: `http://api.test/v1/clinician/photos/${id}/`, created_at: '2026-12-01T10:00:00Z', view, view_label: label });
    render(
      wrap(
        <DeskPhotos
          photos={[photo('n1', 'hairline', 'Hairline (front)'), photo('n2', 'crown', 'Crown (top of the head)'), photo('n3', null, null)]}
          earlier={[{ consultation_id: 'c0', created_at: '2026-06-01T10:00:00Z', photos: [photo('e1', 'hairline', 'Hairline (front)')] }]}
        />,
      ),
    );
    await waitFor(() => expect(screen.getAllByRole('img')).toHaveLength(4));
    expect(screen.getAllByRole('heading', { level: 3 }).map((h) => h.textContent)).toEqual(['Hairline (front)', 'Crown (top of the head)', 'Added later']);
    expect(screen.getByText('No photo of this view')).toBeTruthy();
    expect(sent.map((s) => s.path).sort()).toEqual(['/v1/clinician/photos/e1/', '/v1/clinician/photos/n1/', '/v1/clinician/photos/n2/', '/v1/clinician/photos/n3/']);
  });
});
