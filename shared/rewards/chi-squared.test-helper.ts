/**
 * The chi-squared distribution's survival function (the p-value of a
 * goodness-of-fit statistic), for the draw's fairness test: Q(df/2, x/2),
 * the regularised upper incomplete gamma function, by its series below
 * a + 1 and its continued fraction above (Numerical Recipes §6.2).
 */
export function chiSquaredPValue(statistic: number, degreesOfFreedom: number): number {
  const a = degreesOfFreedom / 2;
  const x = statistic / 2;
  if (x <= 0) return 1;
  return x < a + 1 ? 1 - lowerSeries(a, x) : upperFraction(a, x);
}

/** Pearson's statistic of observed counts against expected ones. */
export function chiSquaredStatistic(observed: readonly number[], expected: readonly number[]): number {
  return observed.reduce((sum, count, index) => sum + (count - expected[index]!) ** 2 / expected[index]!, 0);
}

const EPSILON = 1e-14;
const MAX_STEPS = 1000;

function lowerSeries(a: number, x: number): number {
  let term = 1 / a;
  let sum = term;
  for (let n = 1; n < MAX_STEPS && Math.abs(term) > Math.abs(sum) * EPSILON; n++) {
    term *= x / (a + n);
    sum += term;
  }
  return sum * Math.exp(-x + a * Math.log(x) - logGamma(a));
}

function upperFraction(a: number, x: number): number {
  const tiny = 1e-300;
  let b = x + 1 - a;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < MAX_STEPS; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const step = d * c;
    h *= step;
    if (Math.abs(step - 1) < EPSILON) break;
  }
  return Math.exp(-x + a * Math.log(x) - logGamma(a)) * h;
}

// Lanczos approximation (g = 7, n = 9), accurate to ~15 digits for a > 0.
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905,
  -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

function logGamma(z: number): number {
  if (z < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * z)) - logGamma(1 - z);
  const shifted = z - 1;
  let sum = LANCZOS[0]!;
  for (let i = 1; i < LANCZOS.length; i++) sum += LANCZOS[i]! / (shifted + i);
  const t = shifted + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (shifted + 0.5) * Math.log(t) - t + Math.log(sum);
}
