// What basket-buy, basket-sell and basket-make share: the zap and registry, the basket by address or
// listed symbol, the pool's state, the paid or received token, the aggregator legs (one route per
// basket token, through the route budget) with their checks (LEG_MINIMUM_TOO_LOW, PRICE_IMPACT_TOO_HIGH),
// token checks (TOKEN_FROZEN, TOKEN_PAUSED) and the 10-minute zap deadline.
import { getAddress, isAddress, parseAbi, type Address } from "viem";
import { basketPoolAbi, basketRegistryAbi, basketZapAbi, marketRegistryAbi, testTokenAbi } from "../../../abis/index.js";
import { AggregatorUnavailableError, NoRouteError, type Aggregator } from "../../../adapters/chain/aggregator.js";
import { NATIVE_ETH } from "../../../adapters/chain/aggregator-tokens.js";
import type { Leg } from "../../../domain/bundles/legs.js";
import { ApiError } from "../../../domain/errors.js";
import type { PrepareContext } from "../types.js";
import { units } from "./common.js";
import { aggregatorOf } from "./swap.js";
import { sameAddress } from "../../../domain/address.js";

/** The zap's (and maker's) deadline: 10 minutes. */
export const ZAP_DEADLINE_SECONDS = 600;
/** A buy or make whose price impact is over 3% is refused. */
export const MAX_PRICE_IMPACT_BPS = 300;
const ONE = 10n ** 18n;

export type BasketTarget = { pool: Address; symbol: string; listed: boolean; sellOnly: boolean };

export type PoolState = { tokens: Address[]; weights: bigint[]; balances: bigint[]; supply: bigint; paused: boolean };

export function contractOr503(ctx: PrepareContext, name: string, code: "NOT_DEPLOYED" | "MAKER_NOT_DEPLOYED" = "NOT_DEPLOYED"): Address {
  const address = ctx.deployments.contracts[name];
  if (!address) throw new ApiError(code, `${name} is not deployed on this chain`);
  return getAddress(address);
}

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

/**
 * A basket by pool address (any registered one) or listed symbol; 404 UNKNOWN_BASKET otherwise, or 404
 * NOT_FOUND for an address with no contract at all.
 */
export async function resolveBasket(ctx: PrepareContext, input: string): Promise<BasketTarget> {
  const registry = contractOr503(ctx, "basketRegistry");
  let pool: Address;
  if (isAddress(input, { strict: false })) {
    pool = getAddress(input);
  } else {
    const row = await ctx.reads
      .selectFrom("basket")
      .select(["address"])
      .where("listed", "=", true)
      .where((eb) => eb(eb.fn("lower", ["symbol"]), "=", input.toLowerCase()))
      .executeTakeFirst();
    const deployed = ctx.deployments.baskets.find((b) => b.listed && b.symbol.toLowerCase() === input.toLowerCase());
    const found = row?.address ?? deployed?.address;
    if (!found) throw new ApiError("UNKNOWN_BASKET", `${input} is not a listed basket's symbol: give the basket's address`);
    pool = getAddress(found);
  }
  const [registered, listed, sellOnly] = await Promise.all([
    ctx.client.readContract({ address: registry, abi: basketRegistryAbi, functionName: "isRegistered", args: [pool] }),
    ctx.client.readContract({ address: registry, abi: basketRegistryAbi, functionName: "isListed", args: [pool] }),
    ctx.client.readContract({ address: registry, abi: basketRegistryAbi, functionName: "isSellOnly", args: [pool] }),
  ]);
  if (!registered) {
    // Nothing at all at the address is 404 NOT_FOUND; a contract the registry does not know, UNKNOWN_BASKET.
    const code = await ctx.client.getCode({ address: pool });
    if (!code || code === "0x") throw new ApiError("NOT_FOUND", `Nothing is deployed at ${pool} on chain 4663: give a basket's address or a listed basket's symbol`);
    throw new ApiError("UNKNOWN_BASKET", `${pool} is not a basket`);
  }
  const symbol = await ctx.client.readContract({ address: pool, abi: basketPoolAbi, functionName: "symbol" });
  return { pool, symbol, listed, sellOnly };
}

export async function poolState(ctx: PrepareContext, pool: Address): Promise<PoolState> {
  const read = <F extends "getTokens" | "getNormalizedWeights" | "getBalances" | "totalSupply" | "paused">(functionName: F) =>
    ctx.client.readContract({ address: pool, abi: basketPoolAbi, functionName } as never) as Promise<unknown>;
  const [tokens, weights, balances, supply, paused] = await Promise.all([
    read("getTokens"), read("getNormalizedWeights"), read("getBalances"), read("totalSupply"), read("paused"),
  ]);
  return { tokens: (tokens as Address[]).map((t) => getAddress(t)), weights: weights as bigint[], balances: balances as bigint[], supply: supply as bigint, paused: paused as boolean };
}

export type BasketToken = { address: Address; symbol: string; decimals: number };

/** Symbol and decimals of a token the deployments know (USDG, listed or devnet tokens), else from the chain. */
export async function tokenInfo(ctx: PrepareContext, address: Address): Promise<BasketToken> {
  const usdg = ctx.deployments.contracts.usdg;
  if (usdg && sameAddress(usdg, address)) return { address, symbol: "USDG", decimals: 6 };
  const known = ctx.deployments.tokens.find((t) => sameAddress(t.address, address));
  if (known) return { address, symbol: known.symbol, decimals: known.decimals };
  const [symbol, decimals] = await Promise.all([
    ctx.client.readContract({ address, abi: testTokenAbi, functionName: "symbol" }),
    ctx.client.readContract({ address, abi: testTokenAbi, functionName: "decimals" }),
  ]);
  return { address, symbol, decimals };
}

/**
 * The paid (or received) token: USDG by default, WETH, or one of the basket's tokens by symbol or
 * address. ETH is 422 NATIVE_ETH_IN (when paying); anything else 422 BAD_TOKEN.
 */
export async function basketSideToken(ctx: PrepareContext, input: string | undefined, basketTokens: readonly Address[], paying: boolean): Promise<BasketToken> {
  const usdg = getAddress(contractOr503(ctx, "usdg"));
  if (input === undefined) return tokenInfo(ctx, usdg);
  const text = input.trim();
  if (text.toUpperCase() === "ETH" || sameAddress(text, NATIVE_ETH)) {
    if (paying) throw new ApiError("NATIVE_ETH_IN", "Native ETH cannot be paid in: use WETH");
    throw new ApiError("BAD_TOKEN", "The zap pays ERC-20 tokens: receive WETH, not native ETH", { token: text });
  }
  const weth = ctx.deployments.contracts.weth;
  const candidates: Address[] = [usdg, ...(weth ? [getAddress(weth)] : []), ...basketTokens];
  const infos = await Promise.all(candidates.map((a) => tokenInfo(ctx, a)));
  const found = isAddress(text, { strict: false })
    ? infos.find((t) => sameAddress(t.address, text))
    : infos.find((t) => t.symbol.toLowerCase() === text.toLowerCase());
  if (!found) {
    throw new ApiError("BAD_TOKEN", `${text} cannot ${paying ? "pay for" : "be received from"} this basket: use USDG, WETH or one of its tokens`, { token: text });
  }
  return found;
}

const pausedAbi = parseAbi(["function paused() view returns (bool)"]);

/** 422 TOKEN_FROZEN when `holder` is frozen on `token`; 422 TOKEN_PAUSED when the token says it is paused. */
export async function checkTokenUsable(ctx: PrepareContext, token: BasketToken, holders: readonly Address[]): Promise<void> {
  // WETH9 has neither paused() nor frozen(): its reads would only revert, and a node that answers a
  // revert as -32603 (the devnet) makes viem retry each one (~100 ms per basket that holds WETH).
  const weth = ctx.deployments.contracts.weth;
  if (weth && sameAddress(token.address, weth)) return;
  const [paused, ...frozen] = await Promise.all([
    ctx.client.readContract({ address: token.address, abi: pausedAbi, functionName: "paused" }).catch(() => false),
    ...holders.map((h) => ctx.client.readContract({ address: token.address, abi: testTokenAbi, functionName: "frozen", args: [h] }).catch(() => false)),
  ]);
  if (paused) throw new ApiError("TOKEN_PAUSED", `${token.symbol} is paused`, { token: token.address });
  const at = frozen.findIndex(Boolean);
  if (at >= 0) throw new ApiError("TOKEN_FROZEN", `${token.symbol} is frozen for ${holders[at]}`, { token: token.address });
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
      if (amountIn === 0n) throw new ApiError("AMOUNT_TOO_SMALL", "A leg of this trade would be 0: trade a larger amount", { token: label({ tokenIn, tokenOut }) });
      try {
        const route = await aggregator.route({ tokenIn, tokenOut, amountIn, recipient, slippageBps });
        if (!sameAddress(route.to, aggregator.address)) throw new ApiError("AGGREGATOR_CHANGED", "The aggregator's route is for another contract: retry shortly");
        return { leg: { tokenIn, tokenOut, amountIn, data: route.data }, quote: route.amountOut, minOut: route.minAmountOut, priceImpactBps: route.priceImpactBps ?? 0 };
      } catch (error) {
        const token = label({ tokenIn, tokenOut });
        if (error instanceof NoRouteError) throw new ApiError("BASKET_NO_ROUTE", `The aggregator has no route for ${token} now`, { token });
        if (error instanceof AggregatorUnavailableError) throw new ApiError("ZAP_UNAVAILABLE", `The swap aggregator is unavailable: ${error.message}`);
        throw error;
      }
    }),
  );
}

/** 422 LEG_MINIMUM_TOO_LOW when a leg's aggregator minimum is more than max(slippageBps, 1%) under its quote. */
export function checkLegMinimums(legs: readonly RoutedLeg[], slippageBps: number, label: (leg: Leg) => Address): void {
  const allowed = BigInt(Math.max(slippageBps, 100));
  for (const [i, l] of legs.entries()) {
    const floor = (l.quote * (10_000n - allowed)) / 10_000n;
    if (l.minOut < floor) {
      throw new ApiError(
        "LEG_MINIMUM_TOO_LOW",
        `Leg ${i + 1}'s aggregator minimum ${l.minOut} is more than ${Number(allowed) / 100}% under its quote ${l.quote}`,
        { token: label(l.leg), part: i + 1, minimum: floor.toString(), unit: "token" },
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
  return Number((amount * price) / 10n ** BigInt(decimals)) / 1e18;
}

/** 422 PRICE_IMPACT_TOO_HIGH over 3%, with the effective and limit prices of the basket token. */
export function checkImpact(impactBps: number, spentUsd: number, expectedBpt: bigint, worstToken: Address | undefined): void {
  if (impactBps <= MAX_PRICE_IMPACT_BPS) return;
  const bpt = Number(expectedBpt) / 1e18;
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

export { ONE as BASKET_ONE };
