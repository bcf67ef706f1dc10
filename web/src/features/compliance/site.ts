// The deployment's legal settings (GET /v1/public/site/), loaded once per page load and shared by
// the footer (the EU logo) and the imprint and accessibility pages.
import { api } from '../../api/client';

export type SiteInfo = NonNullable<Awaited<ReturnType<typeof fetchSite>>['data']>;

function fetchSite() {
  return api.GET('/v1/public/site/');
}
let cached: ReturnType<typeof fetchSite> | undefined;
/** One request per page load; a failed one is asked again next time. */
export function loadSite(): ReturnType<typeof fetchSite> {
  cached ??= fetchSite().then((r) => {
    if (r.error || !r.data) cached = undefined;
    return r;
  });
  return cached;
}
