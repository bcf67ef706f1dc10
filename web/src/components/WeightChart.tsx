// A small SVG line chart of weight over time (no chart library): dates on x, kg on y, the goal as a
// dashed line, the percentage lost since the first entry, and a text table for screen readers. The
// drawing is as wide as its frame (the viewBox is wide and the SVG is not height-capped, so nothing
// is letterboxed).
import { useI18n } from '../i18n';

export interface Point {
  logged_on: string;
  weight_kg: number;
}

export function chartGeometry(points: Point[], width = 640, height = 280, pad = 44, goal?: number | null) {
  const sorted = [...points].sort((a, b) => a.logged_on.localeCompare(b.logged_on));
  const xs = sorted.map((p) => Date.parse(`${p.logged_on}T00:00:00Z`));
  const ys = [...sorted.map((p) => p.weight_kg), ...(goal ? [goal] : [])];
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  let [y0, y1] = [Math.min(...ys), Math.max(...ys)];
  if (y1 - y0 < 2) [y0, y1] = [y0 - 1, y1 + 1];
  const sx = (x: number) => (x1 === x0 ? width / 2 : pad + ((x - x0) / (x1 - x0)) * (width - 2 * pad));
  const sy = (y: number) => height - pad - ((y - y0) / (y1 - y0)) * (height - 2 * pad);
  return { sorted, coords: sorted.map((p, i) => ({ x: sx(xs[i]), y: sy(p.weight_kg), p })), y0, y1, sy };
}

/** Percentage of the first logged weight lost since (negative: gained), one decimal; null under two entries. */
export function percentLost(points: Point[]): number | null {
  if (points.length < 2) return null;
  const sorted = [...points].sort((a, b) => a.logged_on.localeCompare(b.logged_on));
  const first = sorted[0]!.weight_kg;
  const last = sorted[sorted.length - 1]!.weight_kg;
  return Math.round(((first - last) / first) * 1000) / 10;
}

export function WeightChart({ points, goal }: { points: Point[]; goal?: number | null }) {
  const { t, date, locale } = useI18n();
  if (!points.length) return <p>{t('journal.chartEmpty')}</p>;
  const width = 640;
  const height = 280;
  const { sorted, coords, y0, y1, sy } = chartGeometry(points, width, height, 44, goal);
  const lost = percentLost(points);
  const pct = lost === null ? '' : new Intl.NumberFormat(locale, { maximumFractionDigits: 1 }).format(Math.abs(lost));
  const line = coords.map((c, i) => `${i ? 'L' : 'M'}${c.x.toFixed(1)},${c.y.toFixed(1)}`).join(' ');
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-labelledby="weight-chart-title" data-points={sorted.length}>
        <title id="weight-chart-title">{t('journal.chart')}</title>
        {[y0, (y0 + y1) / 2, y1].map((v) => (
          <g key={v}>
            <line x1={40} x2={width - 40} y1={sy(v)} y2={sy(v)} className="grid-line" />
            <text x={4} y={sy(v) + 4} className="axis">
              {v.toFixed(1)}
            </text>
          </g>
        ))}
        {goal ? (
          <g data-testid="goal-line">
            <line x1={40} x2={width - 40} y1={sy(goal)} y2={sy(goal)} className="goal-line" />
            <text x={width - 40} y={sy(goal) - 6} textAnchor="end" className="axis">
              {t('journal.goalLine', { kg: goal })}
            </text>
          </g>
        ) : null}
        <path d={line} className="line" fill="none" />
        {coords.map((c) => (
          <circle key={c.p.logged_on} cx={c.x} cy={c.y} r={4} className="dot" />
        ))}
        <text x={40} y={height - 8} className="axis">
          {date(sorted[0].logged_on)}
        </text>
        <text x={width - 40} y={height - 8} textAnchor="end" className="axis">
          {date(sorted[sorted.length - 1].logged_on)}
        </text>
      </svg>
      <figcaption>
        {t('journal.chart')}
        {lost !== null ? <span data-testid="percent-lost"> · {lost >= 0 ? t('journal.lost', { pct }) : t('journal.gained', { pct })}</span> : null}
        {goal ? <span> · {t('journal.goalLine', { kg: goal })}</span> : null}
      </figcaption>
      <table className="visually-hidden">
        <thead>
          <tr>
            <th scope="col">{t('journal.date')}</th>
            <th scope="col">{t('journal.weightKg')}</th>
          </tr>
        </thead>
        <tbody>
          {sorted.map((p) => (
            <tr key={p.logged_on}>
              <td>{date(p.logged_on)}</td>
              <td>{p.weight_kg}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
