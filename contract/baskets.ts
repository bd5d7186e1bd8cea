// Public basket answers: the basket, its daily history and one owner's holding.
import { z } from "@hono/zod-openapi";
import { Address, Timestamp } from "./fields.js";
import { Units, Whole } from "./vaults.js";

export const BasketToken = z
  .object({
    address: Address,
    symbol: z.string().nullable().openapi({ description: "Its symbol; null when the token is not charted" }),
    decimals: z.number().int().nullable().openapi({ description: "Its decimals; null when the token is not charted" }),
    verified: z.boolean().openapi({ description: "On the service's own token list" }),
    weightPct: z.number().openapi({ description: "Its weight in the basket, in percent" }),
    balance: Whole("What the pool holds of it").nullable().openapi({ description: "What the pool holds of it, whole units; null without decimals" }),
    balanceUnits: Units("What the pool holds of it"),
    priceUsd: z.number().nullable().openapi({ description: "Its pool price now, USD per whole token (USDG is 1); null without a market" }),
    valueUsd: z.number().nullable().openapi({ description: "balance × priceUsd; null without a price" }),
  })
  .openapi("BasketToken");

export const Basket = z
  .object({
    address: Address.openapi({ description: "The basket's pool; also its basket token (18 decimals)" }),
    name: z.string().openapi({ description: "Its name (the maker's own for an unlisted basket)" }),
    symbol: z.string().openapi({ description: "Its symbol (the maker's own for an unlisted basket)" }),
    listed: z.boolean().openapi({ description: "Verified: listed by the service. An unlisted basket's name and symbol are its maker's." }),
    maker: Address.openapi({ description: "The wallet that made it" }),
    madeByService: z.boolean().nullable().openapi({ description: "Whether the maker is the service's own admin; null when the chain cannot be read now" }),
    sellOnly: z.boolean().openapi({ description: "Holders can sell but nobody can buy (the service's hidden baskets and those taken off the site)" }),
    paused: z.boolean().openapi({ description: "The pool is paused: no buys or sells" }),
    decimals: z.literal(18).openapi({ description: "Decimals of the basket token" }),
    swapFeePct: z.number().openapi({ description: "Swap fee of the pool, in percent (what holders earn on trades through it)" }),
    tokens: z.array(BasketToken).openapi({ description: "Its tokens, in pool order" }),
    totalSupply: Whole("Basket tokens in existence"),
    totalSupplyUnits: Units("Basket tokens in existence"),
    tvlUsd: z.number().nullable().openapi({ description: "Value of the pool's tokens at their prices now, USD; null when a token has no price" }),
    sharePriceUsd: z.number().nullable().openapi({ description: "tvlUsd per whole basket token; null without a TVL or supply" }),
    feeAprPct: z
      .number()
      .nullable()
      .openapi({
        description:
          "Approximate yearly fee income, in percent of TVL: the swap fees the pool has collected since it was made (each token at its price now), " +
          "divided by the pool's age and annualised (simple). The indexer keeps only cumulative fees, so this is the average since the pool was made, " +
          "not the last 7 days alone. Null for a pool younger than one hour or without a TVL.",
      }),
    change7dPct: z
      .number()
      .nullable()
      .openapi({
        description:
          "Share-price change over 7 days, in percent, from the tokens' hourly closes then and their prices now, each weighted by its pool weight " +
          "(a weighted pool's value follows the weighted geometric mean of its prices; fees are left out). Starts later than 7 days ago when price history is shorter: see change7dSince. Null without prices.",
      }),
    change7dSince: Timestamp.nullable().openapi({ description: "The start of change7dPct: 7 days ago, or the first price known when history is shorter" }),
    createdAt: Timestamp.openapi({ description: "When it was made" }),
  })
  .openapi("Basket", { description: "A basket: a weighted pool of tokens held as one basket token" });

export const BasketHistoryQuery = z.object({
  days: z.coerce.number().int().min(1).max(90).default(7).openapi({ description: "Days of history, 1-90 (default 7)", example: 7, type: "integer" }),
});

export const BasketHistoryPoint = z
  .object({
    day: z.string().openapi({ description: "UTC day, YYYY-MM-DD", example: "2025-01-01" }),
    time: Timestamp.openapi({ description: "The moment valued: the end of the day, or now for today" }),
    sharePriceUsd: z.number().nullable().openapi({ description: "USD per whole basket token then (estimated: see the route); null without prices" }),
    tvlUsd: z.number().nullable().openapi({ description: "sharePriceUsd × totalSupply then; null without prices" }),
    totalSupply: Whole("Basket tokens in existence then"),
    totalSupplyUnits: Units("Basket tokens in existence then"),
  })
  .openapi("BasketHistoryPoint");

export const BasketHistory = z
  .object({
    basket: Address.openapi({ description: "The basket" }),
    days: z.number().int().openapi({ description: "Days asked for" }),
    method: z.string().openapi({ description: "How the past values are estimated, in words" }),
    points: z.array(BasketHistoryPoint).openapi({ description: "One point per UTC day, oldest first; days before the basket was made are left out" }),
  })
  .openapi("BasketHistory");

export const BasketHoldingToken = z
  .object({
    address: Address,
    symbol: z.string().nullable().openapi({ description: "Its symbol; null when not charted" }),
    amount: Whole("The holder's proportional share of the pool's balance")
      .nullable()
      .openapi({ description: "The holder's proportional share of the pool's balance of the token, whole units; null without decimals" }),
    amountUnits: Units("The holder's proportional share of the pool's balance"),
    valueUsd: z.number().nullable().openapi({ description: "Its value now in USD; null without a price" }),
  })
  .openapi("BasketHoldingToken");

export const BasketAccount = z
  .object({
    basket: Address.openapi({ description: "The basket" }),
    owner: Address.openapi({ description: "The holder" }),
    balance: Whole("Basket tokens held"),
    balanceUnits: Units("Basket tokens held"),
    shareOfPoolPct: z.number().openapi({ description: "Held basket tokens as a percent of the supply" }),
    valueUsd: z
      .number()
      .nullable()
      .openapi({ description: "Value of the holding now, USD (the proportional token amounts at their prices); null without prices" }),
    tokens: z.array(BasketHoldingToken).openapi({ description: "What the holding is a claim on, token by token (before the exit's rounding)" }),
    holdingSince: Timestamp.nullable().openapi({ description: "When basket tokens first reached the owner; null when never" }),
    feesEarnedUsd: z.number().openapi({
      description:
        "Approximate swap fees earned, in USD: the holder's share of the pool now × the fees the pool collected since holdingSince, " +
        "those being the pool's cumulative fees (at prices now) spread evenly over its life. 0 when nothing is held.",
    }),
  })
  .openapi("BasketAccount", { description: "One owner's holding of a basket and the fees it earned" });
