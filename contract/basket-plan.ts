// POST /v1/agent/baskets/plan: the request body and the plan (the spec's fields).
import { z } from "@hono/zod-openapi";
import { Address, Timestamp } from "./fields.js";

export const BasketPlanBody = z
  .object({
    tokens: z
      .array(
        z.object({
          token: z.string().min(1).max(64).openapi({ description: "A listed symbol or an address", example: "WETH" }),
          weightPct: z.number().optional().openapi({ description: "Percent; give every token's weight, or none" }),
        }),
      )
      .max(32)
      .openapi({ description: "1-8 tokens (422 TOKEN_COUNT otherwise)" }),
    anchor: z.enum(["USDG", "WETH"]).default("USDG").openapi({ description: "USDG (default) or WETH: added at 10% when the basket holds neither" }),
    swapFeePct: z.number().default(1).openapi({ description: "0.3 or 1 (default 1); 422 MAKE_FEE otherwise" }),
    name: z.string().max(200).optional().openapi({ description: "The name to check (1-64 plain characters)" }),
    symbol: z.string().max(64).optional().openapi({ description: "The symbol to check (1-20 letters, digits, '.', '-' or '+'; not starting with ts)" }),
    days: z.number().int().min(1).max(90).default(30).openapi({ description: "Look-back days, 1-90 (default 30); shortened to the price history there is" }),
  })
  .openapi({ title: "BasketPlanBody" });

const Liquidity = z.enum(["deep", "fair", "thin", "no-market"]).openapi({
  description: "How much more a 1,000 USDG buy pays per token than a 10 USDG one: 2% and up is thin, 0.5% and up is fair; no route is no-market",
});

export const BasketPlanToken = z
  .object({
    address: Address,
    symbol: z.string().nullable().openapi({ description: "The listed symbol, or null for an unlisted token" }),
    kind: z
      .enum(["stock", "crypto", "utility", "meme", "unclassified"])
      .openapi({ description: "The token's category on the service's list (unlisted: unclassified)" }),
    weightPct: z.number(),
    onTradeList: z.boolean().openapi({ description: "On the service's token list: basket-make takes only these" }),
    anchor: z.boolean().openapi({ description: "This token plays the anchor" }),
    added: z.boolean().openapi({ description: "Added by the anchor rule (the basket held neither USDG nor WETH)" }),
    liquidity: Liquidity,
    liquidityCostPct: z.number().nullable().openapi({ description: "The large buy's extra cost per token over the small one, percent (null: no market)" }),
  })
  .openapi("BasketPlanToken");

const LookbackWindow = z.object({
  from: Timestamp,
  to: Timestamp,
  changePct: z.number(),
  feesPer1kUsd: z.number(),
  trades: z.number().int(),
});

export const BasketLookback = z
  .union([
    z.object({
      state: z.literal("ok"),
      prices: z.enum(["market", "chain"]).openapi({
        description:
          "Whose prices: market for a stock-only basket (its stock tokens' market prices, the hourly closes of their USDG markets, USDG at 1), chain otherwise",
      }),
      days: z.number().openapi({ description: "Days simulated (shortened to the history there is)" }),
      from: Timestamp,
      to: Timestamp,
      growthPct: z
        .number()
        .nullable()
        .openapi({ description: "Stock-only baskets (prices market): the simulated change over the window at those market prices, percent; else null" }),
      worstDropPct: z.number().openapi({ description: "The largest fall from a running high, percent" }),
      feesPer1kUsd: z.number().openapi({ description: "Swap fees earned per 1,000 USD started" }),
      trades: z.number().int().openapi({ description: "Hourly rebalances by the keeper that traded" }),
      tvlUsd: z.number().openapi({ description: "The simulated basket's value at the end, for 1,000 USD at the start (fees included)" }),
      windows: z.array(LookbackWindow).openapi({ description: "The window cut in days (up to 14 days) or weeks" }),
    }),
    z.object({ state: z.literal("unavailable"), code: z.string(), reason: z.string() }),
  ])
  .openapi("BasketLookback", {
    description:
      "A weighted pool at these weights simulated over past hourly chain prices, rebalanced by the service's keeper after every hour (an arbitrage back to the weights, fee-free), earning the swap fee on the volume each rebalance trades. Estimates, not quotes; past results do not predict results.",
  });

export const BasketPlan = z
  .object({
    tokens: z.array(BasketPlanToken),
    anchor: z.enum(["USDG", "WETH"]),
    swapFeePct: z.number(),
    lookback: BasketLookback,
    name: z.object({
      name: z.string().nullable().openapi({ description: "The name checked (null when none was given)" }),
      symbol: z.string().nullable(),
      suggested: z.object({ name: z.string(), symbol: z.string() }).openapi({ description: "A free name and symbol from the tokens" }),
      problem: z
        .object({ code: z.string(), message: z.string() })
        .nullable()
        .openapi({ description: "The first name or symbol rule broken (basket-make's code), or null" }),
    }),
    sameTokens: z
      .array(z.object({ address: Address, name: z.string(), symbol: z.string() }))
      .openapi({ description: "Listed baskets that hold exactly these tokens: buy one of them instead of making a copy" }),
    maker: z.enum(["ready", "not-deployed", "unknown"]).openapi({ description: "Whether the basket maker can make it now" }),
    ready: z.boolean().openapi({ description: "basket-make would take this basket now (name and symbol included when given)" }),
    notes: z.array(z.string()),
  })
  .openapi("BasketPlan");
