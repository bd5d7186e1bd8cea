// The liquidity class of a basket token: how much more a 1,000 USDG buy pays per token than a 10 USDG
// one. 2% and up is thin, 0.5% and up is fair, less is deep; no route is no-market. Pure.

export type LiquidityClass = "deep" | "fair" | "thin" | "no-market";

export const SMALL_BUY_USDG = 10;
export const LARGE_BUY_USDG = 1000;

/**
 * The extra cost in percent of the large buy per token over the small one, from the tokens each buy
 * brings (base units; only their ratio matters). Null when either buy brings nothing.
 */
export function liquidityCostPct(smallOut: bigint, largeOut: bigint): number | null {
  if (smallOut <= 0n || largeOut <= 0n) return null;
  // (price paid on the large buy / price paid on the small buy) - 1, with price = USDG / tokens out.
  const ratio = (Number(smallOut) * (LARGE_BUY_USDG / SMALL_BUY_USDG)) / Number(largeOut);
  return Math.max(0, Math.round((ratio - 1) * 100 * 1e4) / 1e4);
}

export function liquidityClass(costPct: number | null): LiquidityClass {
  if (costPct === null) return "no-market";
  if (costPct >= 2) return "thin";
  if (costPct >= 0.5) return "fair";
  return "deep";
}
