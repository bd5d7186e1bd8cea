// swap: any token for any token on the service's swap router, through the aggregator (its route budget).
// The quote (GET /v1/agent/swap/quote) and the prepare share the token rules and the arithmetic here:
// expectedOut is the aggregator's output less the router's 0.1% fee, minimumOut that less slippageBps.
// Quote refusals: 422 UNKNOWN_TOKEN, NOT_A_TOKEN, SAME_TOKEN, NATIVE_ETH_IN, SWAP_NO_ROUTE. The prepare
// adds 422 SWAP_PAUSED, 409 SWAP_CONTRACTS_CHANGED and 503 SWAP_UNAVAILABLE.
import { getAddress, type Address, type PublicClient } from "viem";
import { swapRouterAbi } from "../../../abis/index.js";
import { AggregatorUnavailableError, NoRouteError, type Aggregator, type AggregatorQuote } from "../../../adapters/chain/aggregator.js";
import { directAggregator } from "../../../adapters/chain/aggregator-direct.js";
import { hopNames, resolveToken, unlistedWarning, type ResolvedToken } from "../../../adapters/chain/aggregator-tokens.js";
import type { Deployments } from "../../../adapters/chain/deployments.js";
import { buildSwap } from "../../../domain/bundles/index.js";
import { ApiError } from "../../../domain/errors.js";
import type { PrepareContext, Resolver } from "../types.js";
import { build, invalid } from "./build.js";
import { lessBps, toBaseUnits, units } from "./numbers.js";
import { sameAddress } from "../../../domain/address.js";

/** The router's fee on the output: 0.1%. */
export const SWAP_FEE_BPS = 10;

export type SwapInput = { tokenIn: string; tokenOut: string; amount: string; slippageBps?: number };

export type SwapTokens = { tokenIn: ResolvedToken; tokenOut: ResolvedToken; amountIn: bigint; slippageBps: number; warnings: string[] };

/** The answer's view of a token. */
export const tokenView = (t: ResolvedToken) => ({ address: t.address, symbol: t.symbol, decimals: t.decimals, listed: t.listed });

/** Both tokens and the amount, with the quote's refusals (before any aggregator call). */
export async function resolveSwapTokens(client: PublicClient, deployments: Deployments, input: SwapInput): Promise<SwapTokens> {
  const [tokenIn, tokenOut] = await Promise.all([
    resolveToken(client, deployments, input.tokenIn, "tokenIn"),
    resolveToken(client, deployments, input.tokenOut, "tokenOut"),
  ]);
  if (tokenIn.native) throw new ApiError("NATIVE_ETH_IN", "Native ETH cannot be paid in: use WETH (the router pays ETH out by unwrapping WETH)");
  if (sameAddress(tokenIn.address, tokenOut.address)) throw new ApiError("SAME_TOKEN", "tokenIn and tokenOut are the same token");
  const weth = deployments.contracts.weth;
  if (tokenOut.native && weth && sameAddress(tokenIn.address, weth))
    throw new ApiError("SAME_TOKEN", "WETH to ETH is an unwrap, not a swap: call WETH's withdraw");
  const amountIn = toBaseUnits("amount", input.amount, tokenIn.decimals);
  if (amountIn === 0n) throw invalid("amount", "must be more than 0");
  const warnings = [tokenIn, tokenOut].map(unlistedWarning).filter((w): w is string => w !== undefined);
  return { tokenIn, tokenOut, amountIn, slippageBps: input.slippageBps ?? 100, warnings };
}

/** The token the aggregator delivers: WETH for native ETH out (the router unwraps it). */
export function aggregatorTokenOut(deployments: Deployments, tokenOut: ResolvedToken): Address {
  if (!tokenOut.native) return tokenOut.address;
  const weth = deployments.contracts.weth;
  if (!weth) throw new ApiError("SWAP_NO_ROUTE", "Native ETH out needs WETH, which is not deployed on this chain");
  return getAddress(weth);
}

/** The quote's figures from the aggregator's output (before the fee). */
export function swapFigures(t: SwapTokens, quote: Pick<AggregatorQuote, "amountOut" | "priceImpactBps" | "path">) {
  const fee = (quote.amountOut * BigInt(SWAP_FEE_BPS)) / 10_000n;
  const expectedOut = quote.amountOut - fee;
  const minimumOut = lessBps(expectedOut, t.slippageBps);
  const d = t.tokenOut.decimals;
  return {
    tokenIn: tokenView(t.tokenIn),
    tokenOut: tokenView(t.tokenOut),
    amountIn: units(t.amountIn, t.tokenIn.decimals),
    amountInUnits: t.amountIn.toString(),
    expectedOut: units(expectedOut, d),
    expectedOutUnits: expectedOut.toString(),
    minimumOut: units(minimumOut, d),
    minimumOutUnits: minimumOut.toString(),
    slippageBps: t.slippageBps,
    feeBps: SWAP_FEE_BPS,
    priceImpactBps: quote.priceImpactBps,
    route: hopNames(quote.path),
    warnings: t.warnings,
    raw: { gross: quote.amountOut, fee, expectedOut, minimumOut },
  };
}

/** The aggregator's no-route as the swap's refusal. */
export function swapNoRoute(error: unknown, unavailable: "UNAVAILABLE" | "SWAP_UNAVAILABLE"): never {
  if (error instanceof NoRouteError) throw new ApiError("SWAP_NO_ROUTE", "The aggregator has no route for this swap now");
  if (error instanceof AggregatorUnavailableError) throw new ApiError(unavailable, `The swap aggregator is unavailable: ${error.message}`);
  throw error;
}

/** The quote: nothing stored, one aggregator call through the budget. */
export async function quoteSwap(client: PublicClient, deployments: Deployments, aggregator: Aggregator, input: SwapInput) {
  const t = await resolveSwapTokens(client, deployments, input);
  const quote = await aggregator
    .quote({ tokenIn: t.tokenIn.address, tokenOut: aggregatorTokenOut(deployments, t.tokenOut), amountIn: t.amountIn })
    .catch((error: unknown) => swapNoRoute(error, "UNAVAILABLE"));
  const { raw: _raw, ...answer } = swapFigures(t, quote);
  return answer;
}

/** The context's aggregator (the budget), else the chain's called directly, else undefined. */
export function aggregatorOf(ctx: Pick<PrepareContext, "aggregator" | "client" | "deployments">): Aggregator | undefined {
  return ctx.aggregator ?? directAggregator(ctx.client, ctx.deployments);
}

export const resolveSwap: Resolver<"swap"> = async (ctx, body, owner) => {
  const routerAddress = ctx.deployments.contracts.swapRouter;
  const aggregator = aggregatorOf(ctx);
  if (!routerAddress || !aggregator)
    throw new ApiError("SWAP_UNAVAILABLE", "Swaps are unavailable: the swap router or the aggregator is not deployed on this chain");
  const router = getAddress(routerAddress);
  const t = await resolveSwapTokens(ctx.client, ctx.deployments, body);
  const [paused, configured] = await Promise.all([
    ctx.client.readContract({ address: router, abi: swapRouterAbi, functionName: "paused" }),
    ctx.client.readContract({ address: router, abi: swapRouterAbi, functionName: "aggregator" }),
  ]).catch((error: unknown) => {
    throw new ApiError("SWAP_UNAVAILABLE", `The swap router did not answer: ${(error as Error).message.split("\n")[0]}`);
  });
  if (paused) throw new ApiError("SWAP_PAUSED", "Swaps on the service's router are paused");
  if (!sameAddress(configured, aggregator.address)) {
    throw new ApiError("SWAP_CONTRACTS_CHANGED", `The swap router now uses aggregator ${configured}, not ${aggregator.address}: prepare again shortly`);
  }
  const tokenOut = aggregatorTokenOut(ctx.deployments, t.tokenOut);
  const route = await aggregator
    .route({ tokenIn: t.tokenIn.address, tokenOut, amountIn: t.amountIn, recipient: router, slippageBps: t.slippageBps })
    .catch((error: unknown) => swapNoRoute(error, "SWAP_UNAVAILABLE"));
  if (!sameAddress(route.to, configured))
    throw new ApiError("SWAP_CONTRACTS_CHANGED", "The aggregator's route is for another contract than the router's: prepare again");
  const { raw, ...figures } = swapFigures(t, route);
  const bundle = build("swap", () =>
    buildSwap({ owner, router, tokenIn: t.tokenIn.address, tokenOut: t.tokenOut.address, amountIn: t.amountIn, minAmountOut: raw.minimumOut, route }),
  );
  const usdg = ctx.deployments.contracts.usdg;
  const market = [t.tokenIn, t.tokenOut].find((x) => !x.native && x.listed && !(usdg && sameAddress(x.address, usdg)));
  return {
    bundle,
    priceToken: market?.address,
    allow: { tokens: [t.tokenIn.address, t.tokenOut.address] },
    params: { quote: figures, slippageBps: t.slippageBps },
    figures: { amount: t.amountIn, minimumOut: lessBps(raw.expectedOut, t.slippageBps) },
  };
};
