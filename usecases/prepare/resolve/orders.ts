// limit-order, ladder and order-action on the limit-order hook. Orders take any token with a market, by
// address or verified symbol (marketTokenOf), and are checked as the hook checks them (an open market:
// 422 MARKET_NOT_OPEN; each order worth at least the hook's minimum: 422 AMOUNT_TOO_SMALL with the
// minimum), actions against the order's projection (404 NOT_FOUND, 422 NOT_YOUR_ORDER, ORDER_CLOSED,
// NOTHING_FILLED, NOTHING_TO_CLAIM).
import { limitOrderById } from "../../../adapters/db/reads/positions.js";
import type { Address } from "viem";
import { limitOrderHookAbi, poolAbi } from "../../../abis/index.js";
import { buildLadder, buildLimitOrder, buildOrderAction } from "../../../domain/bundles/index.js";
import { ApiError } from "../../../domain/errors.js";
import { tokenToUsdg, USDG_DECIMALS } from "../../../domain/price.js";
import type { PrepareContext, Resolver } from "../types.js";
import { build, invalid } from "./build.js";
import { lessBps, slippageOf, toBaseUnits, toId, toPriceX18, units } from "./numbers.js";
import { contract, usdgOf } from "./contracts.js";
import { marketTokenOf, openPool, type MarketToken } from "./tokens.js";
import { sameAddress } from "../../../domain/address.js";

/** The input's decimals: the token's when selling, USDG's when buying. */
const inputDecimals = (token: MarketToken, sell: boolean) => (sell ? token.decimals : USDG_DECIMALS);

/** The hook's smallest order in USDG base units (read together with the other reads of a resolver). */
const minOrderUsdg = (ctx: PrepareContext, hook: Address) => ctx.client.readContract({ address: hook, abi: limitOrderHookAbi, functionName: "minOrderUsdg" });

function checkSize(minimum: bigint, token: MarketToken, sell: boolean, amountIn: bigint, priceX18: bigint, part?: number) {
  const value = sell ? tokenToUsdg(amountIn, token.decimals, priceX18) : amountIn;
  if (amountIn === 0n || value < minimum) {
    const which = part === undefined ? "The order" : `Order ${part}`;
    throw new ApiError("AMOUNT_TOO_SMALL", `${which} must be worth at least ${units(minimum, USDG_DECIMALS)} USDG`, {
      minimum: minimum.toString(),
      unit: "USDG",
      ...(part === undefined ? {} : { part }),
    });
  }
}

export const resolveLimitOrder: Resolver<"limit-order"> = async (ctx, body, owner) => {
  const hook = contract(ctx, "limitOrderHook");
  const token = await marketTokenOf(ctx, body.token);
  // Reads issued in one tick go out as one JSON-RPC batch (adapters/chain/client.ts).
  const [pool, minimum] = await Promise.all([openPool(ctx, token), minOrderUsdg(ctx, hook)]);
  const sell = body.side === "sell";
  const amountIn = toBaseUnits("amount", body.amount, inputDecimals(token, sell));
  const market = body.type === "market";
  const slippageBps = slippageOf(body);
  const params: Record<string, unknown> = { side: body.side, amount: body.amount, slippageBps };
  if (market) {
    // The quote is read with the spot price, but its failure (e.g. a zero amount) only counts after
    // the size check, which answers first as before.
    const [spot, quoted, feeBps] = await Promise.all([
      ctx.client.readContract({ address: pool, abi: poolAbi, functionName: "priceX18" }),
      ctx.client.readContract({ address: pool, abi: poolAbi, functionName: "quote", args: [sell ? token.address : usdgOf(ctx), amountIn] }).then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
      ctx.client.readContract({ address: hook, abi: limitOrderHookAbi, functionName: "feeBps" }),
    ]);
    checkSize(minimum, token, sell, amountIn, spot);
    if ("error" in quoted) throw quoted.error;
    const gross = quoted.value;
    const net = lessBps(gross, feeBps);
    const minAmountOut = lessBps(net, slippageBps);
    params.expectedOut = net.toString();
    const bundle = build("limit-order", () =>
      buildLimitOrder({ owner, hook, usdg: usdgOf(ctx), token: token.address, sellToken: sell, amountIn, market: true, minAmountOut }),
    );
    return { bundle, priceToken: token.address, params, allow: { tokens: [token.address] }, figures: { amount: amountIn, minimumOut: minAmountOut } };
  }
  if (body.price === undefined) throw invalid("price", "is required for a limit order");
  const priceX18 = toPriceX18("price", body.price);
  checkSize(minimum, token, sell, amountIn, priceX18);
  const bundle = build("limit-order", () => buildLimitOrder({ owner, hook, usdg: usdgOf(ctx), token: token.address, sellToken: sell, amountIn, priceX18 }));
  return { bundle, priceToken: token.address, params: { ...params, price: body.price }, allow: { tokens: [token.address] }, figures: { amount: amountIn } };
};

export const resolveLadder: Resolver<"ladder"> = async (ctx, body, owner) => {
  const hook = contract(ctx, "limitOrderHook");
  const token = await marketTokenOf(ctx, body.token);
  const [, minimum] = await Promise.all([openPool(ctx, token), minOrderUsdg(ctx, hook)]);
  const sell = body.side === "sell";
  const orders = body.orders.map((o, i) => ({
    amountIn: toBaseUnits(`orders[${i}].amount`, o.amount, inputDecimals(token, sell)),
    priceX18: toPriceX18(`orders[${i}].price`, o.price),
  }));
  for (const [i, o] of orders.entries()) checkSize(minimum, token, sell, o.amountIn, o.priceX18, i + 1);
  const bundle = build("ladder", () => buildLadder({ owner, hook, usdg: usdgOf(ctx), token: token.address, sellToken: sell, orders }));
  return { bundle, priceToken: token.address, params: { side: body.side }, allow: { tokens: [token.address] } };
};

export const resolveOrderAction: Resolver<"order-action"> = async (ctx, body, owner) => {
  const hook = contract(ctx, "limitOrderHook");
  const id = toId("id", body.id);
  const order = await limitOrderById(ctx.reads, id);
  if (!order) throw new ApiError("NOT_FOUND", `no order ${id}`);
  if (!sameAddress(order.owner, owner)) throw new ApiError("NOT_YOUR_ORDER", `order ${id} belongs to another wallet`);
  const { action } = body;
  if (action === "cancel" || action === "realize") {
    if (order.state !== "open") throw new ApiError("ORDER_CLOSED", `order ${id} no longer trades (${order.state})`);
    if (action === "realize" && order.filledIn === 0n) throw new ApiError("NOTHING_FILLED", `order ${id} has no fill to realize: cancel it instead`);
  } else {
    if (order.state === "closed") throw new ApiError("ORDER_CLOSED", `order ${id} is closed`);
    const owed = action === "claim0" ? order.owed0 : action === "claim1" ? order.owed1 : order.owed0 + order.owed1;
    if (owed === 0n) throw new ApiError("NOTHING_TO_CLAIM", `order ${id} owes nothing to ${action}`);
  }
  const bundle = build("order-action", () => buildOrderAction({ owner, hook, action, id }));
  return { bundle, priceToken: order.token as Address, params: { state: order.state } };
};
