// The Wilson score interval's lower bound: the low end of the range a true hit rate lies in, given
// `hits` out of `hits + misses`. z = 1.6449 is the two-sided 90% range's normal quantile. Pure.

/** z of the report card's 90% range. */
export const Z_90 = 1.6449;

export type WilsonLowerBoundParameters = { hits: number; misses: number; z?: number };

/** Lower bound of the Wilson interval (0 when nothing was graded). */
export function wilsonLowerBound({ hits, misses, z = Z_90 }: WilsonLowerBoundParameters): number {
  const n = hits + misses;
  if (n === 0) return 0;
  const p = hits / n;
  const z2 = z * z;
  const centre = p + z2 / (2 * n);
  const margin = z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return Math.max(0, (centre - margin) / (1 + z2 / n));
}
