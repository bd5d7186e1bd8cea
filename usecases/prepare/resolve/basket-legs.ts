// The legs a basket's buy and make share: one payment split over the basket's tokens by weight, each bought
// through the aggregator, and the price impact of them all checked against the cap.
import type { Address } from "viem";
import type { Aggregator } from "../../../adapters/chain/aggregator.js";
import { checkImpact, checkLegMinimums, legsImpactBps, type RoutedLeg, routeLegs } from "./basket-route.js";

/**
 * `amountIn` of `tokenIn` split over `tokens` by `weights` (of `total`; the last leg takes the rounding, as a
 * payment's legs spend at most amountIn), each routed to `spender` and its minimum checked.
 */
export async function routeByWeight(
  aggregator: Aggregator,
  pay: { tokenIn: Address; amountIn: bigint },
  split: { tokens: readonly Address[]; weights: readonly bigint[]; total: bigint },
  spender: Address,
  slippageBps: number,
  usdg: Address,
): Promise<RoutedLeg[]> {
  const { tokenIn, amountIn } = pay;
  const amounts = split.weights.map((w) => (amountIn * w) / split.total);
  amounts[amounts.length - 1]! += amountIn - amounts.reduce((a, b) => a + b, 0n);
  const routed = await routeLegs(
    aggregator,
    split.tokens.map((tokenOut, i) => ({ tokenIn, tokenOut, amountIn: amounts[i]! })),
    spender,
    slippageBps,
    (l) => l.tokenOut,
  );
  checkLegMinimums(routed, slippageBps, (l) => l.tokenOut, usdg);
  return routed;
}

/** The legs' price impact (bps), checked against the cap with the worst leg's token named. */
export function checkLegsImpact(routed: readonly RoutedLeg[], spentUsd: number, expectedBpt: bigint): number {
  const impactBps = legsImpactBps(routed);
  const worst = routed.reduce((a, b) => (b.priceImpactBps > a.priceImpactBps ? b : a), routed[0]!);
  checkImpact(impactBps, spentUsd, expectedBpt, worst?.leg.tokenOut);
  return impactBps;
}
