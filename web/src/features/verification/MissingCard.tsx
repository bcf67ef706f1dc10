// The home page's card: what the patient still has to verify before a doctor can prescribe in the
// categories they use, with a link to the verification page. Nothing when nothing is missing.
import { Link } from '../../router';
import { useLoad } from '../../components/ui';
import { loadVerification, type VerificationState } from './api';
import { useVerificationText } from './strings';

/** What is still missing (`identity`, `weight`) for the given categories, from the verification state. */
export function missingVerification(state: VerificationState | undefined, categories: string[]): Set<string> {
  const wanted = new Set(categories);
  return new Set((state?.requirements ?? []).filter((r) => wanted.has(r.category)).flatMap((r) => r.missing));
}

/** Loads the state itself (pages that do not need it otherwise). */
export function VerificationMissingCard({ categories }: { categories: string[] }) {
  const state = useLoad(loadVerification);
  return <MissingVerification missing={missingVerification(state.data, categories)} />;
}

export function MissingVerification({ missing }: { missing: Set<string> }) {
  const { v } = useVerificationText();
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
