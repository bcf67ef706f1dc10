// The EU common logo for selling medicines at a distance (Directive 2001/83/EC art. 85c, Commission
// Implementing Regulation (EU) No 699/2014 and its annex): green stripes with a white tick, the flag
// of the Member State where the dispensing pharmacy is established, and the text inviting a check,
// the whole logo linking to the pharmacy's entry in that state's national register. Drawn here
// (nothing fetched); the text is real text in the page's language, the drawing is decoration.

type Stripes = { dir: 'h' | 'v'; colors: string[]; weights?: number[] };

// The flags of the Member States (and EEA states) the service may dispense from, as plain bands
// (coats of arms left out at this size). ISO 3166 alpha-3, as DISTANCE_SELLING_COUNTRY.
const FLAGS: Record<string, Stripes> = {
  DEU: { dir: 'h', colors: ['#000000', '#DD0000', '#FFCE00'] },
  AUT: { dir: 'h', colors: ['#ED2939', '#FFFFFF', '#ED2939'] },
  NLD: { dir: 'h', colors: ['#AE1C28', '#FFFFFF', '#21468B'] },
  LUX: { dir: 'h', colors: ['#EF3340', '#FFFFFF', '#00A3E0'] },
  HUN: { dir: 'h', colors: ['#CE2939', '#FFFFFF', '#477050'] },
  BGR: { dir: 'h', colors: ['#FFFFFF', '#00966E', '#D62612'] },
  EST: { dir: 'h', colors: ['#0072CE', '#000000', '#FFFFFF'] },
  LTU: { dir: 'h', colors: ['#FDB913', '#006A44', '#C1272D'] },
  LVA: { dir: 'h', colors: ['#9E3039', '#FFFFFF', '#9E3039'], weights: [2, 1, 2] },
  POL: { dir: 'h', colors: ['#FFFFFF', '#DC143C'] },
  ESP: { dir: 'h', colors: ['#AA151B', '#F1BF00', '#AA151B'], weights: [1, 2, 1] },
  FRA: { dir: 'v', colors: ['#002395', '#FFFFFF', '#ED2939'] },
  ITA: { dir: 'v', colors: ['#009246', '#FFFFFF', '#CE2B37'] },
  BEL: { dir: 'v', colors: ['#000000', '#FDDA24', '#EF3340'] },
  IRL: { dir: 'v', colors: ['#169B62', '#FFFFFF', '#FF883E'] },
  ROU: { dir: 'v', colors: ['#002B7F', '#FCD116', '#CE1126'] },
  PRT: { dir: 'v', colors: ['#006600', '#FF0000'], weights: [2, 3] },
};

function Flag({ country, x, y, w, h }: { country: string; x: number; y: number; w: number; h: number }) {
  const f = FLAGS[country];
  if (!f) {
    return (
      <g>
        <rect x={x} y={y} width={w} height={h} fill="#FFFFFF" stroke="#6b7680" />
        <text x={x + w / 2} y={y + h / 2 + 5} textAnchor="middle" fontSize="14" fontFamily="sans-serif" fill="#1b1f23">
          {country}
        </text>
      </g>
    );
  }
  const weights = f.weights ?? f.colors.map(() => 1);
  const total = weights.reduce((a, b) => a + b, 0);
  // Where each band starts: the weights before it.
  const starts = weights.map((_, i) => weights.slice(0, i).reduce((a, b) => a + b, 0));
  return (
    <g>
      {f.colors.map((c, i) =>
        f.dir === 'h' ? (
          <rect key={i} x={x} y={y + (h * starts[i]!) / total} width={w} height={(h * weights[i]!) / total} fill={c} />
        ) : (
          <rect key={i} x={x + (w * starts[i]!) / total} y={y} width={(w * weights[i]!) / total} height={h} fill={c} />
        ),
      )}
      <rect x={x} y={y} width={w} height={h} fill="none" stroke="#6b7680" />
    </g>
  );
}

/**
 * The logo as a link to the register entry. Its name starts with the visible text (WCAG 2.5.3);
 * `detail` (the pharmacy and the register) follows for assistive technology only.
 */
export function EuLogo({ registerUrl, country, text, detail }: { registerUrl: string; country: string; text: string; detail: string }) {
  const stripes = [0, 1, 2, 3, 4, 5];
  return (
    <a className="eu-logo" href={registerUrl} rel="noopener noreferrer" target="_blank">
      <svg viewBox="0 0 160 64" width="160" height="64" aria-hidden="true" focusable="false">
        <rect x="0" y="0" width="160" height="64" fill="#FFFFFF" />
        {stripes.map((i) => (
          <rect key={i} x="0" y={i * 10 + 4} width="160" height="6" fill="#78BE20" />
        ))}
        {/* the white tick over the stripes */}
        <polyline points="96,30 112,48 146,10" fill="none" stroke="#FFFFFF" strokeWidth="9" strokeLinecap="square" />
        <rect x="10" y="12" width="52" height="36" fill="#FFFFFF" />
        <Flag country={country} x={12} y={14} w={48} h={32} />
      </svg>
      <span className="eu-logo-text">{text}</span>
      <span className="visually-hidden">: {detail}</span>
    </a>
  );
}
