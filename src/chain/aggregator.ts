// The swap aggregator, as the service sees it. The devnet implements it over its own pools
// (dev-aggregator.ts); a production adapter fills the same interface from the aggregator's HTTP API:
// `quote` asks for a price and `route` for the executable calldata, both for a named `recipient`
// contract (the swap router, the basket zap or maker, a vault or its router) that will make the call.
import type { Address, Hex } from "viem";

export type AggregatorQuoteRequest = {
  tokenIn: Address;
  tokenOut: Address;
  /** Base units of tokenIn. */
  amountIn: bigint;
};

export type AggregatorQuote = AggregatorQuoteRequest & {
  /** Base units of tokenOut the route is expected to pay (before any service fee). */
  amountOut: bigint;
  /** The aggregator's own estimate of price impact, or null when it gives none. */
  priceImpactBps: number | null;
  /** Human-readable hops, e.g. ["WETH", "USDG", "LINK"]. */
  path: string[];
};

export type AggregatorRoute = AggregatorQuote & {
  /** The aggregator contract the calldata is for; contracts check it against their configured one. */
  to: Address;
  data: Hex;
  /** The minimum written into the calldata. */
  minAmountOut: bigint;
  recipient: Address;
};

export class NoRouteError extends Error {
  override name = "NoRouteError";
  constructor(readonly tokenIn: Address, readonly tokenOut: Address) {
    super(`no route from ${tokenIn} to ${tokenOut}`);
  }
}

export interface Aggregator {
  /** The aggregator's executor contract address (what routers are configured with). */
  readonly address: Address;
  quote(request: AggregatorQuoteRequest): Promise<AggregatorQuote>;
  /** Calldata that swaps for `recipient`, paying at least `minAmountOut`. */
  route(request: AggregatorQuoteRequest & { recipient: Address; slippageBps: number }): Promise<AggregatorRoute>;
}
