// basket-sell: basket tokens (an amount, or all: true) for one token (USDG by default, WETH or one of
// the basket's tokens) through the zap: a proportional exit, then each token sold through the
// aggregator (one route per token, through the route budget). Sell-only baskets sell. Refusals: 404
// UNKNOWN_BASKET; 422 NOTHING_TO_SELL (the owner holds none), TOKEN_SHORTFALL (fewer than the amount),
// SELL_REFUSED (the zap would refuse, with its reason), and the basket-buy refusals that apply to a sell.
import { testTokenAbi } from "../../../abis/index.js";
import { proportionalExit } from "../../../domain/basket-pool.js";
import { buildBasketSell } from "../../../domain/bundles/index.js";
import { ApiError } from "../../../domain/errors.js";
import type { Resolver } from "../types.js";
import { build, invalid } from "./build.js";
import { lessBps, slippageOf, toBaseUnits, units } from "./numbers.js";
import { contract, usdgOf } from "./contracts.js";
import { basketSideToken, checkTokenUsable, poolState, resolveBasket, tokenInfo } from "./basket-inputs.js";
import { basketAggregator, checkAggregator, checkLegMinimums, legsImpactBps, priceX18, quoteParam, routeLegs, valueUsd, zapDeadline } from "./basket-route.js";

const BASKET_DECIMALS = 18;

export const resolveBasketSell: Resolver<"basket-sell"> = async (ctx, body, owner) => {
  const zap = contract(ctx, "basketZap");
  const aggregator = basketAggregator(ctx);
  if (body.all !== true && body.amount === undefined) throw invalid("amount", "give the basket tokens to sell, or all: true");
  if (body.all === true && body.amount !== undefined) throw invalid("amount", "give amount or all: true, not both");
  const basket = await resolveBasket(ctx, body.basket);
  const state = await poolState(ctx, basket.pool);
  if (state.paused) throw new ApiError("BASKET_PAUSED", `${basket.symbol} is paused: it takes no sells now`);
  const receive = await basketSideToken(ctx, body.receive, state.tokens, false);
  const balance = await ctx.client.readContract({ address: basket.pool, abi: testTokenAbi, functionName: "balanceOf", args: [owner] });
  if (balance === 0n) throw new ApiError("NOTHING_TO_SELL", `The owner holds no ${basket.symbol}`, { token: basket.pool });
  const bptIn = body.all === true ? balance : toBaseUnits("amount", body.amount!, BASKET_DECIMALS);
  if (bptIn === 0n) throw new ApiError("AMOUNT_TOO_SMALL", "amount must be more than 0", { minimum: "1", unit: "token" });
  if (bptIn > balance) {
    throw new ApiError("TOKEN_SHORTFALL", `The owner holds ${units(balance, BASKET_DECIMALS)} ${basket.symbol}, less than ${units(bptIn, BASKET_DECIMALS)}`, {
      token: basket.pool,
      minimum: bptIn.toString(),
      unit: "token",
    });
  }
  const infos = await Promise.all(state.tokens.map((t) => tokenInfo(ctx, t)));
  await Promise.all([checkTokenUsable(ctx, receive, [zap, owner]), ...infos.map((t) => checkTokenUsable(ctx, t, [zap, basket.pool]))]);
  await checkAggregator(ctx, zap, aggregator);

  const exits = proportionalExit(state.balances, state.supply, bptIn);
  const slippageBps = slippageOf(body);
  const routed = await routeLegs(
    aggregator,
    state.tokens.map((tokenIn, i) => ({ tokenIn, tokenOut: receive.address, amountIn: exits[i]! })),
    zap,
    slippageBps,
    (l) => l.tokenIn,
  );
  checkLegMinimums(routed, slippageBps, (l) => l.tokenIn, usdgOf(ctx));
  const expectedOut = routed.reduce((s, l) => s + l.quote, 0n);
  // The expected less slippage: the floor the answer's expectedOut shows (the typed client refuses less).
  const minOut = lessBps(expectedOut, slippageBps);
  const { deadline, chainTime } = await zapDeadline(ctx);
  const bundle = build("basket-sell", () =>
    buildBasketSell({ owner, zap, pool: basket.pool, bptIn, tokenOut: receive.address, legs: routed.map((l) => l.leg), minOut, deadline }),
  );

  // The zap's own word before the pipeline's simulation: a refusal is SELL_REFUSED with its reason.
  const simulation = await ctx.simulator.simulate(owner, bundle.steps);
  if (!simulation.ok) throw new ApiError("SELL_REFUSED", `The zap would refuse this sell: ${simulation.reason} (step ${simulation.step + 1})`);

  const [price, block] = await Promise.all([priceX18(ctx, receive.address), ctx.client.getBlockNumber()]);
  return {
    bundle,
    priceToken: infos.find((t) => t.symbol !== "USDG")?.address,
    allow: { tokens: [basket.pool, receive.address, ...state.tokens] },
    chainTime,
    params: {
      basket: { symbol: basket.symbol, listed: basket.listed, sellOnly: basket.sellOnly },
      receive: receive.symbol,
      expectedOut: expectedOut.toString(),
      slippageBps,
      exits: state.tokens.map((token, i) => ({ token, amount: exits[i]!.toString() })),
      quote: quoteParam(block, valueUsd(expectedOut, receive.decimals, price), legsImpactBps(routed)),
    },
    figures: { amount: bptIn, minimumOut: minOut },
  };
};
