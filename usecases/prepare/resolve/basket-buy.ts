// basket-buy: pay one token (USDG by default, WETH or one of the basket's tokens) for basket tokens
// through the zap. The payment is split over the basket's tokens by weight, each bought through the
// aggregator (one route per token, through the route budget); the zap joins in proportion. Refusals:
// 404 UNKNOWN_BASKET; 422 BASKET_SELL_ONLY, BASKET_PAUSED, BAD_TOKEN, NATIVE_ETH_IN, TOKEN_PAUSED,
// TOKEN_FROZEN, AMOUNT_TOO_SMALL, BASKET_NO_ROUTE, PRICE_IMPACT_TOO_HIGH (over 3%), LEG_MINIMUM_TOO_LOW,
// ROUTE_TOO_LARGE; 503 NOT_DEPLOYED, ZAP_UNAVAILABLE, AGGREGATOR_CHANGED. An owner short of the paid token
// is no refusal: the answer's `issues.balance` says so (adapters/chain/bundle-funds.ts).
import { proportionalJoin } from "../../../domain/basket-pool.js";
import { buildBasketBuy } from "../../../domain/bundles/index.js";
import { ApiError } from "../../../domain/errors.js";
import type { Resolver } from "../types.js";
import { build } from "./build.js";
import { lessBps, slippageOf, toBaseUnits, units } from "./numbers.js";
import { contract, usdgOf } from "./contracts.js";
import { basketSideToken, checkTokenUsable, poolState, resolveBasket, tokenInfo } from "./basket-inputs.js";
import { basketAggregator, checkAggregator, priceX18, quoteParam, valueUsd, zapDeadline } from "./basket-route.js";
import { checkLegsImpact, routeByWeight } from "./basket-legs.js";
import { sameAddress } from "../../../domain/address.js";

export const resolveBasketBuy: Resolver<"basket-buy"> = async (ctx, body, owner) => {
  const zap = contract(ctx, "basketZap");
  const aggregator = basketAggregator(ctx);
  const basket = await resolveBasket(ctx, body.basket);
  if (basket.sellOnly) throw new ApiError("BASKET_SELL_ONLY", `${basket.symbol} can only be sold: the service took it off the site`);
  const state = await poolState(ctx, basket.pool);
  if (state.paused) throw new ApiError("BASKET_PAUSED", `${basket.symbol} is paused: it takes no buys now`);
  const pay = await basketSideToken(ctx, body.payWith, state.tokens, true);
  const amountIn = toBaseUnits("amount", body.amount, pay.decimals);
  // The amount is in the paid token's units: USDG's, or a token's.
  const unit = sameAddress(pay.address, usdgOf(ctx)) ? "USDG" : "token";
  if (amountIn === 0n) throw new ApiError("AMOUNT_TOO_SMALL", "amount must be more than 0", { minimum: "1", unit });
  const infos = await Promise.all(state.tokens.map((t) => tokenInfo(ctx, t)));
  await Promise.all([checkTokenUsable(ctx, pay, [owner, zap]), ...infos.map((t) => checkTokenUsable(ctx, t, [zap, basket.pool]))]);
  await checkAggregator(ctx, zap, aggregator);

  // Split by weight; the last leg takes the rounding (the zap requires the legs to spend at most amountIn).
  const slippageBps = slippageOf(body);
  const split = { tokens: state.tokens, weights: state.weights, total: state.weights.reduce((a, b) => a + b, 0n) };
  const routed = await routeByWeight(aggregator, { tokenIn: pay.address, amountIn }, split, zap, slippageBps, usdgOf(ctx));
  const expected = proportionalJoin(
    state.balances,
    state.supply,
    routed.map((l) => l.quote),
  ).bptOut;
  if (expected === 0n) throw new ApiError("AMOUNT_TOO_SMALL", `${units(amountIn, pay.decimals)} ${pay.symbol} buys no basket tokens: pay more`, { unit });
  const [payPrice, block] = await Promise.all([priceX18(ctx, pay.address), ctx.client.getBlockNumber()]);
  const spentUsd = valueUsd(amountIn, pay.decimals, payPrice);
  const impactBps = checkLegsImpact(routed, spentUsd, expected);
  // The least basket tokens: the expected less slippage, the floor the answer's expectedOut shows (the typed
  // client refuses less). Each leg's own minimum is checked against its quote (checkLegMinimums).
  const minBptOut = lessBps(expected, slippageBps);
  const { deadline, chainTime } = await zapDeadline(ctx);
  const bundle = build("basket-buy", () =>
    buildBasketBuy({ owner, zap, pool: basket.pool, tokenIn: pay.address, amountIn, legs: routed.map((l) => l.leg), minBptOut, deadline }),
  );
  return {
    bundle,
    priceToken: infos.find((t) => t.symbol !== "USDG")?.address,
    allow: { tokens: [basket.pool, pay.address, ...state.tokens] },
    chainTime,
    params: {
      basket: { symbol: basket.symbol, listed: basket.listed },
      payWith: pay.symbol,
      expectedOut: expected.toString(),
      slippageBps,
      quote: quoteParam(block, spentUsd, impactBps),
    },
    figures: { amount: amountIn, minimumOut: minBptOut },
  };
};
