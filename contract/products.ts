// Products (data of GET /v1/agent/products): what the service offers now, family by family.
import { z } from "@hono/zod-openapi";
import { Address, Timestamp } from "./fields.js";

export const VAULT_FAMILIES = ["merged", "up", "stock-token"] as const;
export const VaultFamily = z.enum(VAULT_FAMILIES).openapi("VaultFamily", { description: "Vault family: merged, up or stock-token" });

const FamilyCount = z
  .object({
    count: z.number().int().openapi({ description: "Vaults of the family agents may use (every status)" }),
    open: z.number().int().openapi({ description: "Of those, how many take deposits now (status open, below the cap)" }),
  })
  .openapi("ProductsVaultFamily", { description: "One family's vaults" });

const reason = (what: string) => z.string().openapi({ description: `Why ${what} is or is not available, in words` });

export const ProductsVaults = z
  .object({
    available: z.boolean().openapi({ description: "True when at least one vault agents may use takes deposits now" }),
    count: z.number().int().openapi({ description: "Vaults agents may use, of every family and status (full, closed and paused included)" }),
    open: z.number().int().openapi({ description: "How many of them take deposits now" }),
    families: z.object({ merged: FamilyCount, up: FamilyCount, "stock-token": FamilyCount }).openapi({ description: "Per family: {count, open}" }),
    unavailable: z.array(VaultFamily).openapi({ description: "Families with no vault that takes deposits now" }),
    reason: reason("vault deposits"),
  })
  .openapi("ProductsVaults", { description: "Vaults of the three families agents may use" });

export const ProductsLimitOrders = z
  .object({
    available: z.boolean().openapi({ description: "True when the hook is deployed and, as read from the chain, not paused" }),
    hook: Address.nullable().openapi({ description: "The limit-order hook; null when not deployed" }),
    feeBps: z.number().int().nullable().openapi({ description: "Commission on fills, in basis points; null when it cannot be read" }),
    paused: z.boolean().nullable().openapi({ description: "Whether the hook is paused; null when the chain cannot be read now" }),
    reason: reason("limit orders"),
  })
  .openapi("ProductsLimitOrders", { description: "Limit orders: single orders and ladders of 2-20 orders on the limit-order hook" });

export const ProductsGrids = z
  .object({
    available: z.boolean().openapi({ description: "True when the grid strategy is deployed and, as read from the chain, not paused" }),
    strategy: Address.nullable().openapi({ description: "The grid strategy contract; null when not deployed" }),
    feeBps: z.number().int().nullable().openapi({ description: "Fee on each grid trade, in basis points; null when it cannot be read" }),
    paused: z.boolean().nullable().openapi({ description: "Whether the grid strategy is paused; null when the chain cannot be read now" }),
    reason: reason("grids"),
  })
  .openapi("ProductsGrids", { description: "Grid strategies: a repeating buy line and sell line" });

export const LadderMarket = z
  .object({
    token: Address.openapi({ description: "The market's token" }),
    symbol: z.string().openapi({ description: "Its symbol (its own when the token is unverified)" }),
    decimals: z.number().int().openapi({ description: "Its decimals" }),
    pool: z.string().openapi({ description: "Its USDG pool (checksummed address)" }),
    quoteIs0: z.boolean().openapi({ description: "Whether USDG is the pool's token0" }),
    pausable: z.boolean().openapi({ description: "Whether the market keeps market hours and can be closed (stock tokens); `note` names those closed now" }),
  })
  .openapi("LadderMarket", { description: "A listed ladder-strategy market" });

export const ProductsLadderStrategies = z
  .object({
    available: z.boolean().openapi({ description: "True when the contract is not paused, has an open market and its keeper is healthy" }),
    ladder: Address.openapi({ description: "The ladder strategy contract" }),
    feeBps: z.number().int().openapi({ description: "Fee on each part's trade, in basis points" }),
    maxLegs: z.number().int().openapi({ description: "Most parts of one ladder strategy" }),
    paused: z.boolean().nullable().openapi({ description: "Whether the contract is paused; null when the chain cannot be read now" }),
    markets: z.array(LadderMarket).openapi({ description: "The listed markets, open or closed" }),
    marketsComplete: z.boolean().openapi({
      description: "True when every listed market is described here (false when the chain could not be read now, or a market's token is not indexed yet)",
    }),
    keeperHealthy: z.boolean().openapi({
      description: "True when the service's keeper harvested within the last 30 minutes (it also trades the ladder parts whose lines the market crossed)",
    }),
    note: z.string().openapi({ description: "How ladder strategies differ from limit-order ladders, and which markets are closed now" }),
    reason: reason("ladder strategies"),
  })
  .openapi("ProductsLadderStrategies", {
    description:
      "Ladder strategies: 1-16 parts on one strategy market, each with its own buy line and sell line, opened together after one approval. Present in the products answer only while deployed and listed.",
  });

export const ProductsBaskets = z
  .object({
    available: z.boolean().openapi({ description: "True when there is a listed basket and the zap can quote buys and sells now" }),
    count: z.number().int().openapi({ description: "Listed (verified) baskets" }),
    zapAvailable: z.boolean().openapi({ description: "Whether the basket zap is deployed, readable on the chain now, and set to the service's aggregator" }),
    reason: reason("baskets"),
  })
  .openapi("ProductsBaskets", { description: "The listed (verified) baskets and whether the zap can quote buys and sells now" });

export const Products = z
  .object({
    vaults: ProductsVaults,
    limitOrders: ProductsLimitOrders,
    grids: ProductsGrids,
    ladderStrategies: ProductsLadderStrategies.optional(),
    baskets: ProductsBaskets,
    asOf: Timestamp.openapi({ description: "When this answer was made (chain reads in it are at most 10 seconds older)" }),
  })
  .openapi("Products", { description: "What the service offers now. Fetch wallet policies again when this changes." });
