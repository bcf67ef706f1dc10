// The home page's card: what the patient still has to verify before a doctor can prescribe in the
// categories they use, with a link to the verification page. Nothing when nothing is missing.
import { Link } from '../../router';
import { useLoad } from '../../components/ui';
import { loadVerification } from './api';
import { useVerificationText } from './strings';

export function VerificationMissingCard({ categories }: { categories: string[] }) {
  const { v } = useVerificationText();
  const state = useLoad(loadVerification);
  const wanted = new Set(categories);
  const missing = new Set((state.data?.requirements ?? []).filter((r) => wanted.has(r.category)).flatMap((r) => r.missing));
  if (missing.size === 0) return null;
  return (
    <article className="card" aria-labelledby="verification-missing-h" data-testid="verification-missing">
      <h2 id="verification-missing-h">{v('missingTitle')}</h2>
      <ul>
        {[...missing].map((m) => (
          <li key={m}>{v(m === 'identity' ? 'missing_identity' : 'missing_weight')}</li>
        ))}
      </ul>
      <p>
        <Link to="/verification">{v('goVerify')}</Link>
      </p>
    </article>
  );
}
