// The swap aggregator, as the service sees it. The devnet implements it over its own pools
// (dev-aggregator.ts); a production adapter fills the same interface from the aggregator's HTTP API:
// `quote` asks for a price and `route` for the executable calldata, both for a named `recipient`
// contract (the swap router, the basket zap or maker, a vault or its router) that will make the call.
//
// What a production (HTTP) adapter must fill, so that routes, resolvers and the budget stay as they are:
//
// - `address`: the aggregator's executor contract on chain 4663, the address the swap router, the
//   basket zap and maker, the merged vaults and the stock vault router are configured with
//   (`aggregator()` on each). A prepare refuses when a contract names another one
//   (SWAP_CONTRACTS_CHANGED for swaps, AGGREGATOR_CHANGED for the other kinds).
// - `quote({tokenIn, tokenOut, amountIn})`: one price request (e.g. GET /quote?sellToken&buyToken&
//   sellAmount). Fill `amountOut` (base units of tokenOut, before the service's fee), `priceImpactBps`
//   (the aggregator's own estimate, or null when its API gives none) and `path` (the hops'
//   addresses: the service names them, a listed token by its listed symbol and any other by address,
//   never by a symbol a token chose for itself). Throw NoRouteError when the API says there is no route (HTTP 4xx "no
//   liquidity"/"no route"); throw AggregatorUnavailableError on timeouts, 5xx and rate-limit answers.
// - `route({..., recipient, slippageBps})`: one executable route (e.g. GET /swap with
//   `taker = recipient`, `slippagePercentage = slippageBps / 10_000`). Fill `to` (the executor: must be
//   `address`), `data` (its calldata, which pulls exactly `amountIn` of tokenIn from the caller with the
//   caller's temporary approval and pays tokenOut back to `recipient`, the calling contract, never a
//   wallet) and `minAmountOut` (the minimum written into the calldata). The service checks the minimum
//   against the quote (LEG_MINIMUM_TOO_LOW) and the calldata size (ROUTE_TOO_LARGE), so the adapter
//   passes both through unchanged.
// - Both are plain async calls with no budget of their own: every call goes through the `aggregator`
//   BullMQ queue (usecases/prepare/aggregator-queue.ts), whose limiter is the route budget
//   (AGGREGATOR_BUDGET_PER_SECOND) that quotes and prepares share. API keys and the HTTP base URL are
//   the adapter's own configuration; nothing else in the service changes.
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
  /** The hops' token addresses, in order (the service names them for people: `hopNames`). */
  path: Address[];
};

export type AggregatorRouteRequest = AggregatorQuoteRequest & { recipient: Address; slippageBps: number };

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
  constructor(
    readonly tokenIn: Address,
    readonly tokenOut: Address,
  ) {
    super(`no route from ${tokenIn} to ${tokenOut}`);
  }
}

/** The aggregator did not answer (down, timed out, refused): callers answer their 503. */
export class AggregatorUnavailableError extends Error {
  override name = "AggregatorUnavailableError";
}

export interface Aggregator {
  /** The aggregator's executor contract address (what routers are configured with). */
  readonly address: Address;
  quote(request: AggregatorQuoteRequest): Promise<AggregatorQuote>;
  /** Calldata that swaps for `recipient`, paying at least `minAmountOut`. */
  route(request: AggregatorRouteRequest): Promise<AggregatorRoute>;
}
