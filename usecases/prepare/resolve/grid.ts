// grid: open or openWithMarket a grid on any open market, the token by address or verified symbol
// (422 UNKNOWN_TOKEN, MARKET_NOT_OPEN, AMOUNT_TOO_SMALL under the strategy's minimum; the USDG as
// amountUsdg, or amount, its older name), or close, setRepeat, collect the owner's own grid
// (404 NOT_FOUND, 422 NOT_YOUR_GRID, GRID_CLOSED, NOTHING_TO_COLLECT).
import { gridById } from "../../../adapters/db/reads/positions.js";
import type { Address } from "viem";
import { gridStrategyAbi, poolAbi } from "../../../abis/index.js";
import { buildGrid } from "../../../domain/bundles/index.js";
import { ApiError } from "../../../domain/errors.js";
import type { GridBody, Resolver } from "../types.js";
import { build, invalid } from "./build.js";
import { lessBps, slippageOf, toBaseUnits, toId, toPriceX18, units } from "./numbers.js";
import { contract, usdgOf } from "./contracts.js";
import { marketTokenOf, openPool } from "./tokens.js";
import { sameAddress } from "../../../domain/address.js";
import { USDG_DECIMALS } from "../../../domain/price.js";

export const resolveGrid: Resolver<"grid"> = async (ctx, body, owner) => {
  const strategy = contract(ctx, "gridStrategy");
  const { action } = body;
  if (action === "open" || action === "openWithMarket") {
    if (body.token === undefined) throw invalid("token", `is required for action ${action}`);
    for (const field of ["buyPrice", "sellPrice"] as const) if (body[field] === undefined) throw invalid(field, `is required for action ${action}`);
    const amount = gridAmount(body, action);
    const token = await marketTokenOf(ctx, body.token);
    // One JSON-RPC batch: the pool, the strategy's minimum, and its fee when a market buy is planned.
    const [pool, minimum, marketFeeBps] = await Promise.all([
      openPool(ctx, token),
      ctx.client.readContract({ address: strategy, abi: gridStrategyAbi, functionName: "minAmountUsdg" }),
      action === "openWithMarket" ? ctx.client.readContract({ address: strategy, abi: gridStrategyAbi, functionName: "feeBps" }) : undefined,
    ]);
    const amountUsdg = toBaseUnits(amount.field, amount.text, USDG_DECIMALS);
    const buyPriceX18 = toPriceX18("buyPrice", body.buyPrice!);
    const sellPriceX18 = toPriceX18("sellPrice", body.sellPrice!);
    if (sellPriceX18 <= buyPriceX18) throw invalid("sellPrice", "must be above buyPrice");
    if (amountUsdg < minimum) {
      throw new ApiError("AMOUNT_TOO_SMALL", `A grid starts with at least ${units(minimum, USDG_DECIMALS)} USDG`, {
        minimum: minimum.toString(),
        unit: "USDG",
      });
    }
    const slippageBps = slippageOf(body);
    let minTokenOut: bigint | undefined;
    if (action === "openWithMarket") {
      const feeBps = marketFeeBps!;
      const spend = amountUsdg - (amountUsdg * BigInt(feeBps)) / 10_000n;
      const out = await ctx.client.readContract({ address: pool, abi: poolAbi, functionName: "quote", args: [usdgOf(ctx), spend] });
      minTokenOut = lessBps(out, slippageBps);
    }
    const bundle = build("grid", () =>
      buildGrid({
        owner,
        strategy,
        action,
        usdg: usdgOf(ctx),
        token: token.address,
        buyPriceX18,
        sellPriceX18,
        amountUsdg,
        repeat: body.repeat ?? true,
        minTokenOut,
      }),
    );
    // `amount` stays in params beside `amountUsdg` for callers that read the older name.
    const params = { amountUsdg: amount.text, amount: amount.text, buyPrice: body.buyPrice, sellPrice: body.sellPrice, slippageBps };
    return { bundle, priceToken: token.address, params, allow: { tokens: [token.address] }, figures: { amount: amountUsdg, minimumOut: minTokenOut } };
  }

  if (body.id === undefined) throw invalid("id", `is required for action ${action}`);
  const id = toId("id", body.id);
  const grid = await gridById(ctx.reads, id);
  if (!grid) throw new ApiError("NOT_FOUND", `no grid ${id}`);
  if (!sameAddress(grid.owner, owner)) throw new ApiError("NOT_YOUR_GRID", `grid ${id} belongs to another wallet`);
  if (grid.state === "closed") throw new ApiError("GRID_CLOSED", `grid ${id} is closed`);
  if (action === "setRepeat" && body.repeat === undefined) throw invalid("repeat", "is required for action setRepeat");
  if (action === "collect") {
    const amount = await ctx.client.readContract({ address: strategy, abi: gridStrategyAbi, functionName: "collectable", args: [id] });
    if (amount === 0n) throw new ApiError("NOTHING_TO_COLLECT", `grid ${id} has no profit to collect`);
  }
  const bundle = build("grid", () => buildGrid({ owner, strategy, action, id, repeat: body.repeat }));
  return { bundle, priceToken: grid.token as Address, params: { state: grid.state } };
};

/**
 * The grid's USDG: `amountUsdg` (the spec's name, as grid-tokens lines give it) or `amount` (its older
 * name, still taken). Both given must agree; neither is INVALID_REQUEST naming amountUsdg.
 */
function gridAmount(body: GridBody, action: string): { field: "amountUsdg" | "amount"; text: string } {
  const { amountUsdg, amount } = body;
  if (
    amountUsdg !== undefined &&
    amount !== undefined &&
    toBaseUnits("amountUsdg", amountUsdg, USDG_DECIMALS) !== toBaseUnits("amount", amount, USDG_DECIMALS)
  ) {
    throw invalid("amountUsdg", `and amount (its older name) differ (${amountUsdg} and ${amount}): give one`);
  }
  if (amountUsdg !== undefined) return { field: "amountUsdg", text: amountUsdg };
  if (amount !== undefined) return { field: "amount", text: amount };
  throw invalid("amountUsdg", `is required for action ${action}`);
}
