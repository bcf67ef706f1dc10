// Request and response shapes of the photos module.
import { z } from 'zod';

const ts = z.iso.datetime({ offset: true });

export const PhotoIdParams = z.object({ id: z.uuid() });
export const SlugParams = z.object({ slug: z.string().max(100) });
export const ConsultationParams = z.object({ id: z.uuid() });

/** A consultation's image (spec 2.3 `images` items). */
export const ImageOutSchema = z
  .object({
    id: z.uuid(),
    url: z.string().meta({ description: 'Serves the photo (image/jpeg, re-encoded without metadata) to its patient; `Cache-Control: no-store`' }),
    created_at: ts,
  })
  .meta({ id: 'ClinicalImage' });

export const QuestionnairePhotoSchema = ImageOutSchema.extend({
  category: z.string(),
  question_key: z.string(),
  width: z.number().int(),
  height: z.number().int(),
}).meta({ id: 'QuestionnairePhoto', description: 'An uploaded photo: the draft answer of its question names its id (`values`: {"<id>": "<view>"})' });

export const PhotoBytes = z.string().meta({ description: 'The photo (image/jpeg)', format: 'binary' });

const DeskPhoto = z.object({
  id: z.uuid(),
  url: z.string().meta({ description: 'The desk’s address of the bytes (each view written to the patient’s access log)' }),
  created_at: ts,
  view: z.string().nullable().meta({ description: 'The view it shows (the photo question’s `views`), null for a photo added to the consultation later' }),
  view_label: z.string().nullable(),
});

/** The review desk's photos of a consultation and of the patient's earlier ones of the category. */
export const DeskPhotosSchema = {
  photos: z.array(DeskPhoto).meta({ description: 'This consultation’s photos, with the view each shows' }),
  earlier_photos: z
    .array(z.object({ consultation_id: z.uuid(), created_at: ts, photos: z.array(DeskPhoto) }))
    .meta({ description: 'The patient’s earlier consultations of the same category with photos, newest first (to compare the same views)' }),
};
