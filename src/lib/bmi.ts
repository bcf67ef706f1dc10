// The one body-mass-index formula of the service (the eligibility engine's rules and the renewal
// screen's baseline both use it). Exact: w * 10000 / h^2 has no float drift at the 27 and 30 bounds
// that (w / (h / 100) ** 2) shows.

/** BMI from height in cm and weight in kg, unrounded; null unless both are positive numbers. */
export function bmi(heightCm: unknown, weightKg: unknown): number | null {
  if (typeof heightCm !== 'number' || typeof weightKg !== 'number' || !(heightCm > 0) || !(weightKg > 0)) return null;
  return (weightKg * 10000) / (heightCm * heightCm);
}

/** For display: one decimal. */
export const roundBmi = (value: number): number => Math.round(value * 10) / 10;
