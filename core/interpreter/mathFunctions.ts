/**
 * Special functions JavaScript's Math lacks, accurate to a few ulps so the interpreter
 * agrees with the C library within the conformance tolerances.
 */

/** erf via its Maclaurin series near zero and erfc's continued fraction in the tails. */
export function erf(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (Math.abs(x) < 2.5) {
    // erf(x) = 2/sqrt(pi) * sum_n (-1)^n x^(2n+1) / (n! (2n+1))
    let term = x;
    let sum = x;
    const x2 = x * x;
    for (let n = 1; n < 200; n++) {
      term *= -x2 / n;
      const add = term / (2 * n + 1);
      sum += add;
      if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
    }
    return (2 / Math.sqrt(Math.PI)) * sum;
  }
  return x > 0 ? 1 - erfcTail(x) : erfcTail(-x) - 1;
}

export function erfc(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (x < 0.5) return 1 - erf(x);
  if (x < 2.5) {
    // avoid cancellation: integrate the tail from the continued fraction at a safe point
    return erfcTail(x);
  }
  return erfcTail(x);
}

/** erfc for x >= 0.5 by Lentz's continued fraction. */
function erfcTail(x: number): number {
  if (x > 27) return 0;
  const tiny = 1e-300;
  // erfc(x) = exp(-x^2)/sqrt(pi) * 1/(x + 1/2/(x + 1/(x + 3/2/(x + ...))))
  let f = x;
  let c = x;
  let d = 0;
  for (let n = 1; n < 500; n++) {
    const a = n / 2;
    d = x + a * d;
    d = Math.abs(d) < tiny ? tiny : d;
    c = x + a / c;
    c = Math.abs(c) < tiny ? tiny : c;
    d = 1 / d;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(-x * x) / Math.sqrt(Math.PI) / f;
}

const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
  -176.61503916999185, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** Gamma function (Lanczos, g = 7) with the reflection formula for x < 0.5. */
export function gamma(x: number): number {
  if (Number.isInteger(x) && x <= 0) return NaN;
  if (x < 0.5) return Math.PI / (Math.sin(Math.PI * x) * gamma(1 - x));
  if (Number.isInteger(x) && x < 171) {
    let r = 1;
    for (let i = 2; i < x; i++) r *= i;
    return r;
  }
  x -= 1;
  let a = LANCZOS[0];
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += LANCZOS[i] / (x + i);
  return Math.sqrt(2 * Math.PI) * Math.pow(t, x + 0.5) * Math.exp(-t) * a;
}

/** numpy's round: to the nearest integer, halfway cases to the even one (round(2.5) == 2). */
export function roundHalfEven(x: number): number {
  const r = Math.round(x);
  // Math.round sends halfway cases up; an exact half below an odd r belongs to r - 1
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** GT4Py's round_away_from_zero, as its numpy backend computes it: copysign(floor(|x| + 0.5), x). */
export function roundAwayFromZero(x: number): number {
  const r = Math.floor(Math.abs(x) + 0.5);
  return x < 0 || Object.is(x, -0) ? -r : r;
}
