// Basket weights: percent as the API takes them, 18-decimal fractions as the pool holds them (1e18 =
// 100%), the even split with the anchor's 10%, and the shape rules (each at least 1%, 100% in all).
// Pure.
import type { ErrorCode } from "../errors.js";
import { ONE_X18 } from "../price.js";

export const WEIGHT_ONE = ONE_X18;
export const MIN_WEIGHT = 10n ** 16n;
/** The anchor's share in an even split, or when it is added to a basket that holds neither anchor. */
export const ANCHOR_WEIGHT = 10n ** 17n;

/** Percent (up to 4 decimals) to a fraction of 1e18. */
export function pctToX18(pct: number): bigint {
  return BigInt(Math.round(pct * 10_000)) * 10n ** 12n;
}

export function x18ToPct(weight: bigint): number {
  return Number(weight / 10n ** 12n) / 10_000;
}

/**
 * No weights given: the anchor (index `anchor`, -1 when none) gets 10% and the others share the rest
 * evenly; the last of them takes the rounding, so the sum is exactly 1e18. One token alone holds 100%.
 */
export function evenWeights(n: number, anchor: number): bigint[] {
  if (n === 1) return [WEIGHT_ONE];
  const others = anchor >= 0 ? n - 1 : n;
  const rest = anchor >= 0 ? WEIGHT_ONE - ANCHOR_WEIGHT : WEIGHT_ONE;
  const each = rest / BigInt(others);
  const weights = Array.from({ length: n }, (_, i) => (i === anchor ? ANCHOR_WEIGHT : each));
  const last = anchor === n - 1 ? n - 2 : n - 1;
  weights[last]! += WEIGHT_ONE - weights.reduce((a, b) => a + b, 0n);
  return weights;
}

/** Given weights scaled to make room for an added anchor at 10% (the anchor is appended last). */
export function withAddedAnchor(weights: readonly bigint[]): bigint[] {
  const scaled = weights.map((w) => (w * (WEIGHT_ONE - ANCHOR_WEIGHT)) / WEIGHT_ONE);
  const sum = scaled.reduce((a, b) => a + b, 0n);
  if (scaled.length > 0) scaled[scaled.length - 1]! += WEIGHT_ONE - ANCHOR_WEIGHT - sum;
  return [...scaled, ANCHOR_WEIGHT];
}

export type WeightProblem = { code: Extract<ErrorCode, "WEIGHT_TOO_SMALL" | "WEIGHTS_SUM">; index?: number; message: string };

/** The first rule a set of weights breaks: WEIGHT_TOO_SMALL (under 1%), WEIGHTS_SUM (not 100%). */
export function weightProblem(weights: readonly bigint[]): WeightProblem | undefined {
  const small = weights.findIndex((w) => w < MIN_WEIGHT);
  if (small >= 0) return { code: "WEIGHT_TOO_SMALL", index: small, message: `token ${small + 1}'s weight ${x18ToPct(weights[small]!)}% is under 1%` };
  const sum = weights.reduce((a, b) => a + b, 0n);
  if (sum !== WEIGHT_ONE) return { code: "WEIGHTS_SUM", message: `weights sum to ${x18ToPct(sum)}%, not 100%` };
  return undefined;
}
