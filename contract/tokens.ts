// GET /v1/tokens: every charted token with its market figures.
import { z } from "@hono/zod-openapi";
import { Address, Timestamp } from "./fields.js";

/** The spec's categories of /v1/tokens. */
export const TOKEN_CATEGORIES = ["stock", "utility", "meme", "other"] as const;
export type TokenListCategory = (typeof TOKEN_CATEGORIES)[number];
export const TokenCategory = z.enum(TOKEN_CATEGORIES).openapi("TokenCategory", {
  description: "stock, utility or meme from the service's list; other for every other token (the list's crypto tokens, and tokens it does not list)",
});

/** A token's list category (stock, crypto, utility, meme, unclassified) as /v1/tokens names it. */
export const tokenListCategory = (category: string): TokenListCategory =>
  category === "stock" || category === "utility" || category === "meme" ? category : "other";

export const TokensQuery = z.object({
  q: z
    .string()
    .trim()
    .min(1)
    .max(64)
    .optional()
    .openapi({ description: "Search: part of a symbol or name (any case), or a whole or partial address (0x...)", example: "eth" }),
  category: z.enum(TOKEN_CATEGORIES).optional().openapi({ description: "Only this category (other: every token that is not stock, utility or meme)" }),
  sort: z
    .enum(["volume", "price", "liquidity", "symbol"])
    .default("volume")
    .openapi({ description: "volume (default: busiest first), price and liquidity (highest first), symbol (A-Z)" }),
});

export const TokenMarkets = z
  .object({
    limitOrders: z
      .boolean()
      .openapi({ description: "Limit orders and limit-order ladders can be placed on this token now (it has a USDG pool and the hook is not paused)" }),
    grids: z.boolean().openapi({ description: "Grids can be opened on this token now (it has a USDG pool and the grid strategy is not paused)" }),
    ladderStrategies: z
      .boolean()
      .nullable()
      .openapi({ description: "The token's ladder-strategy market is listed and open now; null when the chain cannot be read" }),
  })
  .openapi("TokenMarkets", { description: "Whether its markets are open. Limit orders, ladders and grids take any token by address." });

export const TokenListing = z
  .object({
    address: Address,
    symbol: z.string().openapi({ description: "The token's own symbol (for an unverified token, not checked by the service)" }),
    name: z.string().openapi({ description: "The token's own name" }),
    decimals: z.number().int().openapi({ description: "Its decimals" }),
    category: TokenCategory,
    verified: z.boolean().openapi({ description: "On the service's own token list" }),
    warning: z.string().nullable().openapi({ description: "For an unverified token: its symbol is its own, so check the address. Null for verified tokens." }),
    pool: Address.openapi({ description: "Its USDG pool" }),
    priceUsd: z.number().openapi({ description: "Pool price now, USD (USDG) per whole token" }),
    change24hPct: z
      .number()
      .nullable()
      .openapi({ description: "Price change over 24 hours, in percent (from the last hourly close at least 24 hours old); null with no price that old" }),
    volume24hUsd: z.number().openapi({ description: "USDG side of its pool trades in the hourly candles of the last 24 hours, in USD" }),
    liquidityUsd: z.number().openapi({ description: "Pool liquidity: twice the USDG in its pool, in USD" }),
    swaps: z.number().int().openapi({ description: "Trades on its pool since it was made" }),
    markets: TokenMarkets,
    updatedAt: Timestamp.openapi({ description: "The pool's last change" }),
  })
  .openapi("TokenListing", { description: "A charted token (one with a USDG market)" });
