// A basket trade's aggregator route: the aggregator (the zap's or maker's own, 503 ZAP_UNAVAILABLE,
// AGGREGATOR_CHANGED), one leg per basket token through the route budget with its checks (BASKET_NO_ROUTE,
// LEG_MINIMUM_TOO_LOW), the price impact (PRICE_IMPACT_TOO_HIGH over 3%), the quote's USD figures and the
// 10-minute zap deadline.
import { getAddress, type Address } from "viem";
import { basketZapAbi, marketRegistryAbi } from "../../../abis/index.js";
import { AggregatorUnavailableError, NoRouteError, type Aggregator } from "../../../adapters/chain/aggregator.js";
import type { Leg } from "../../../domain/products/baskets/legs.js";
import { ApiError } from "../../../domain/errors.js";
import type { PrepareContext } from "../types.js";
import { aggregatorOf } from "./swap.js";
import { sameAddress } from "../../../domain/address.js";
import { ONE_X18 } from "../../../domain/price.js";
import { priceUsd } from "../../../domain/format.js";

/** The zap's (and maker's) deadline: 10 minutes. */
export const ZAP_DEADLINE_SECONDS = 600;
/** A buy or make whose price impact is over 3% is refused. */
export const MAX_PRICE_IMPACT_BPS = 300;
const ONE = ONE_X18;

/** The aggregator, or 503 ZAP_UNAVAILABLE. */
export function basketAggregator(ctx: PrepareContext): Aggregator {
  const aggregator = aggregatorOf(ctx);
  if (!aggregator) throw new ApiError("ZAP_UNAVAILABLE", "The basket zap cannot route: no aggregator is deployed on this chain");
  return aggregator;
}

/** 503 AGGREGATOR_CHANGED when `contract` (the zap or maker) is configured with another aggregator. */
export async function checkAggregator(ctx: PrepareContext, contract: Address, aggregator: Aggregator): Promise<void> {
  const configured = await ctx.client.readContract({ address: contract, abi: basketZapAbi, functionName: "aggregator" });
  if (!sameAddress(configured, aggregator.address)) {
    throw new ApiError("AGGREGATOR_CHANGED", `${contract} now uses aggregator ${configured}, not ${aggregator.address}: retry shortly`);
  }
}

export type RoutedLeg = { leg: Leg; quote: bigint; minOut: bigint; priceImpactBps: number };

/**
 * One aggregator route per leg (a pass-through when the tokens are the same), for `recipient` (the zap or
 * maker). No route: 422 BASKET_NO_ROUTE naming the token; the aggregator down: 503 ZAP_UNAVAILABLE.
 */
export async function routeLegs(
  aggregator: Aggregator,
  legs: readonly { tokenIn: Address; tokenOut: Address; amountIn: bigint }[],
  recipient: Address,
  slippageBps: number,
  label: (leg: { tokenIn: Address; tokenOut: Address }) => Address,
): Promise<RoutedLeg[]> {
  return Promise.all(
    legs.map(async ({ tokenIn, tokenOut, amountIn }): Promise<RoutedLeg> => {
      if (sameAddress(tokenIn, tokenOut)) return { leg: { tokenIn, tokenOut, amountIn, data: "0x" }, quote: amountIn, minOut: amountIn, priceImpactBps: 0 };
      if (amountIn === 0n)
        throw new ApiError("AMOUNT_TOO_SMALL", "A leg of this trade would be 0: trade a larger amount", { token: label({ tokenIn, tokenOut }) });
      try {
        const route = await aggregator.route({ tokenIn, tokenOut, amountIn, recipient, slippageBps });
        if (!sameAddress(route.to, aggregator.address))
          throw new ApiError("AGGREGATOR_CHANGED", "The aggregator's route is for another contract: retry shortly");
        return {
          leg: { tokenIn, tokenOut, amountIn, data: route.data },
          quote: route.amountOut,
          minOut: route.minAmountOut,
          priceImpactBps: route.priceImpactBps ?? 0,
        };
      } catch (error) {
        const token = label({ tokenIn, tokenOut });
        if (error instanceof NoRouteError) throw new ApiError("BASKET_NO_ROUTE", `The aggregator has no route for ${token} now`, { token });
        if (error instanceof AggregatorUnavailableError) throw new ApiError("ZAP_UNAVAILABLE", `The swap aggregator is unavailable: ${error.message}`);
        throw error;
      }
    }),
  );
}

/**
 * 422 LEG_MINIMUM_TOO_LOW when a leg's aggregator minimum is more than max(slippageBps, 1%) under its quote;
 * the minimum is in the leg's output token (USDG, or a token).
 */
export function checkLegMinimums(legs: readonly RoutedLeg[], slippageBps: number, label: (leg: Leg) => Address, usdg: Address): void {
  const allowed = BigInt(Math.max(slippageBps, 100));
  for (const [i, l] of legs.entries()) {
    const floor = (l.quote * (10_000n - allowed)) / 10_000n;
    if (l.minOut < floor) {
      throw new ApiError(
        "LEG_MINIMUM_TOO_LOW",
        `Leg ${i + 1}'s aggregator minimum ${l.minOut} is more than ${Number(allowed) / 100}% under its quote ${l.quote}`,
        { token: label(l.leg), part: i + 1, minimum: floor.toString(), unit: sameAddress(l.leg.tokenOut, usdg) ? "USDG" : "token" },
      );
    }
  }
}

/** The legs' price impact, weighted by what each leg spends (in the paid token's units): basis points. */
export function legsImpactBps(legs: readonly RoutedLeg[]): number {
  const spent = legs.reduce((s, l) => s + l.leg.amountIn, 0n);
  if (spent === 0n) return 0;
  const weighted = legs.reduce((s, l) => s + l.leg.amountIn * BigInt(Math.round(l.priceImpactBps)), 0n);
  return Number(weighted / spent);
}

/** USDG per whole token (18 decimals): 1 for USDG, the market registry's price otherwise (0 when none). */
export async function priceX18(ctx: PrepareContext, token: Address): Promise<bigint> {
  const usdg = ctx.deployments.contracts.usdg;
  if (usdg && sameAddress(usdg, token)) return ONE;
  const markets = ctx.deployments.contracts.markets;
  if (!markets) return 0n;
  return ctx.client.readContract({ address: getAddress(markets), abi: marketRegistryAbi, functionName: "priceX18", args: [token] }).catch(() => 0n);
}

/** USD value of `amount` base units of a token at `price` (priceX18). */
export function valueUsd(amount: bigint, decimals: number, price: bigint): number {
  return priceUsd((amount * price) / 10n ** BigInt(decimals));
}

/** 422 PRICE_IMPACT_TOO_HIGH over 3%, with the effective and limit prices of the basket token. */
export function checkImpact(impactBps: number, spentUsd: number, expectedBpt: bigint, worstToken: Address | undefined): void {
  if (impactBps <= MAX_PRICE_IMPACT_BPS) return;
  const bpt = Number(expectedBpt) / Number(ONE);
  const priceUsd = bpt > 0 ? spentUsd / bpt : spentUsd;
  const fair = priceUsd * (1 - impactBps / 10_000);
  throw new ApiError("PRICE_IMPACT_TOO_HIGH", `The price impact is ${(impactBps / 100).toFixed(2)}%, over 3%: trade less or in parts`, {
    priceUsd: round6(priceUsd),
    limitUsd: round6(fair * 1.03),
    ...(worstToken ? { token: worstToken } : {}),
  });
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/** The zap's deadline: 10 minutes after the later of the chain's time and the service's clock. */
export async function zapDeadline(ctx: PrepareContext): Promise<{ deadline: bigint; chainTime: bigint }> {
  const block = await ctx.client.getBlock({ blockTag: "latest" });
  const now = BigInt(Math.floor(ctx.now().getTime() / 1000));
  // The chain time goes with the bundle: the pipeline's deadline check starts its window there too.
  return { deadline: (block.timestamp > now ? block.timestamp : now) + BigInt(ZAP_DEADLINE_SECONDS), chainTime: block.timestamp };
}

/** The quote params of a basket answer. */
export function quoteParam(block: bigint, valueUsdNow: number, impactBps: number) {
  const priceImpactPct = impactBps / 100;
  return { block: Number(block), valueUsd: round6(valueUsdNow), costUsd: round6((valueUsdNow * impactBps) / 10_000), priceImpactPct };
}
