// The desk's photos of a consultation, large, each view beside the same view of the patient's earlier
// consultations of the category (newest earlier first), so that a change over time is seen at once.
// Every photo opened is written to the patient's access log by the API.
import { useI18n } from '../../i18n';
import { AuthImage } from './AuthImage';
import { usePhotoStrings, type PhotoKey } from './strings';
import './photos.css';

export interface DeskPhoto {
  id: string;
  url: string;
  created_at: string;
  view: string | null;
  view_label: string | null;
}

interface Props {
  photos: DeskPhoto[];
  earlier: { consultation_id: string; created_at: string; photos: DeskPhoto[] }[];
}

/** The views in the order they first appear, then the photos added later (no view). */
function viewsOf(photos: DeskPhoto[]): { view: string | null; label: string | null }[] {
  const out: { view: string | null; label: string | null }[] = [];
  for (const p of photos) if (!out.some((v) => v.view === p.view)) out.push({ view: p.view, label: p.view_label });
  return out.sort((a, b) => (a.view === null ? 1 : 0) - (b.view === null ? 1 : 0));
}

/** The catalogue's photo views the desk names in its own language (the API answers the English label). */
const VIEW_LABELS: Record<string, PhotoKey> = { hairline: 'viewHairline', temples: 'viewTemples', crown: 'viewCrown' };

export function DeskPhotos({ photos = [], earlier = [] }: Partial<Props>) {
  const s = usePhotoStrings();
  const { date } = useI18n();
  if (!photos.length) return null;
  // The newest earlier consultation with photos is the comparison (its views, side by side).
  const before = earlier[0];
  return (
    <section className="desk-photos" aria-labelledby="desk-photos-title">
      <h2 id="desk-photos-title">{s('deskTitle')}</h2>
      {viewsOf(photos).map(({ view, label }) => {
        const now = photos.filter((p) => p.view === view);
        const then = view === null ? [] : (before?.photos.filter((p) => p.view === view) ?? []);
        const key = view === null ? undefined : VIEW_LABELS[view];
        const title = key ? s(key) : (label ?? s('deskAdded'));
        return (
          <div key={view ?? 'added'} data-view={view ?? 'added'}>
            <h3>{title}</h3>
            <div className="desk-photo-row">
              {now.map((p) => (
                <figure key={p.id}>
                  <AuthImage url={p.url} alt={`${title}: ${s('deskNow')}`} className="desk-photo" />
                  <figcaption>
                    {s('deskNow')}, {date(p.created_at)}
                  </figcaption>
                </figure>
              ))}
              {before && view !== null ? (
                then.length ? (
                  then.map((p) => (
                    <figure key={p.id}>
                      <AuthImage url={p.url} alt={`${title}: ${s('deskEarlier', { date: date(before.created_at) })}`} className="desk-photo" />
                      <figcaption>{s('deskEarlier', { date: date(before.created_at) })}</figcaption>
                    </figure>
                  ))
                ) : (
                  <figure>
                    <div className="desk-photo-none">{s('deskNone')}</div>
                    <figcaption>{s('deskEarlier', { date: date(before.created_at) })}</figcaption>
                  </figure>
                )
              ) : null}
            </div>
          </div>
        );
      })}
    </section>
  );
}
