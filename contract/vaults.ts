// Vault answers: the AgentVault list element, the vault detail, its pool prices and its earnings.
import { z } from "@hono/zod-openapi";
import { Address, Timestamp } from "./fields.js";
import { VaultFamily } from "./products.js";

/** A decimal string in whole units of the named asset ("1.5"). */
export const Whole = (what: string) => z.string().openapi({ description: `${what}, a decimal string in whole units`, example: "1.5" });
/** The same amount in base units ("1500000"). */
export const Units = (what: string) => z.string().openapi({ description: `${what}, a decimal string in base units`, example: "1500000" });

export const VaultToken = z
  .object({
    address: Address,
    symbol: z.string().openapi({ description: "Its symbol" }),
    decimals: z.number().int().openapi({ description: "Its decimals" }),
  })
  .openapi("VaultToken", { description: "A token of a vault: address, symbol and decimals" });

export const VaultStatus = z.enum(["open", "full", "closed", "paused"]).openapi("VaultStatus", {
  description: "open takes deposits; full has reached its deposit cap; closed and paused take none. Withdrawals stay open in every status.",
});
export const WithdrawalMode = z.enum(["usdg", "in-kind", "queue"]).openapi("WithdrawalMode", {
  description: "usdg: paid in USDG at once; in-kind: paid in the vault's own assets at once; queue: a request the keeper settles later",
});

export const VaultContracts = z
  .object({
    vault: Address.openapi({ description: "The vault (its shares are an ERC-20 of this address)" }),
    depositQueue: Address.nullable().openapi({
      description:
        "Up vaults: where deposits are requested. Null for the others (merged vaults queue deposits inside the vault; stock-token vaults take them through the router)",
    }),
    withdrawalQueue: Address.nullable().openapi({ description: "Up vaults: where queued withdrawals are requested; else null" }),
    redeemQueue: Address.nullable().openapi({ description: "Merged vaults with a redeem queue: where queued withdrawals are requested; else null" }),
    router: Address.nullable().openapi({ description: "Stock-token vaults: the router that turns USDG into the stock token and back; else null" }),
  })
  .openapi("VaultContracts", { description: "The contracts a bundle for this vault calls" });

export const VaultLimits = z
  .object({
    min: Whole("Smallest deposit, in the asset"),
    minUnits: Units("Smallest deposit, in the asset"),
    cap: Whole("Deposit cap: most total assets, queued deposits included")
      .nullable()
      .openapi({ description: "Deposit cap (most total assets, queued deposits included), whole units of the asset; null when uncapped" }),
    capUnits: Units("Deposit cap").nullable().openapi({ description: "The cap in base units; null when uncapped" }),
    room: Whole("Room left").nullable().openapi({
      description:
        "What a deposit may add now, whole units of the asset: while open, the cap less total assets and pending deposits (at least 0); 0 when full, closed or paused; null when open and uncapped",
    }),
    roomUnits: Units("Room left").nullable().openapi({ description: "The room in base units; null when open and uncapped" }),
    roomUsd: z.number().nullable().openapi({ description: "The room in USD; null when open and uncapped, or without a price" }),
    pending: Whole("Deposits waiting in the vault's queue"),
    pendingUnits: Units("Deposits waiting in the vault's queue"),
  })
  .openapi("VaultLimits", { description: "Deposit limits, in the vault's asset (USDG for merged and up vaults, the stock token for stock-token vaults)" });

export const VaultRange = z
  .object({
    lowerUsd: z.number().openapi({ description: "Lower end of the range the vault provides liquidity in, USD per whole token" }),
    upperUsd: z.number().openapi({ description: "Upper end, USD per whole token" }),
    inRange: z.boolean().nullable().openapi({ description: "Whether the token's price now is inside the range; null without a price" }),
  })
  .openapi("VaultRange");

export const AgentVault = z
  .object({
    address: Address.openapi({ description: "The vault" }),
    name: z.string().openapi({ description: "Its name" }),
    family: VaultFamily,
    status: VaultStatus,
    reason: z.string().openapi({ description: "The status in words (the vault's own reason; for a vault at its cap, that the cap is reached)" }),
    token: VaultToken.openapi({ description: "The token the vault pairs with USDG (merged, up) or holds (stock-token)" }),
    asset: VaultToken.openapi({
      description: "What the vault's figures are counted in: USDG for merged and up vaults, the stock token for stock-token vaults",
    }),
    shareDecimals: z.number().int().openapi({ description: "Decimals of the vault's shares: 12, or 18 for stock-token vaults" }),
    tokenPriceUsd: z.number().nullable().openapi({ description: "The token's pool price now, USD per whole token; null without a market" }),
    aprPct: z.number().nullable().openapi({
      description:
        "Yearly rate of the harvested income after the vault's fee, in percent: the net income of the harvests over the last 7 days divided by the average total assets, annualised (simple, not compounded). Null with fewer than two harvests in the window. Past income does not predict future income; vaults can lose value.",
    }),
    aprDays: z.number().openapi({ description: "Days the APR actually covers (7, or less for a younger vault)" }),
    tvl: Whole("Total assets, in the asset: the vault's totalAssets() now (a merged or up vault's USDG plus its token at the pool price now)"),
    tvlUnits: Units("Total assets, in the asset (the vault's totalAssets() now)"),
    tvlUsd: z.number().nullable().openapi({ description: "Total assets in USD (stock-token vaults: at the token's price now; null without a price)" }),
    sharePrice: z.number().nullable().openapi({
      description: "Assets per whole share now (the vault's convertToAssets of one share), in whole units of the asset; null before the first share",
    }),
    sharePriceUsd: z.number().nullable().openapi({ description: "USD per whole share; null before the first share or without a price" }),
    range: VaultRange.nullable().openapi({ description: "The price range the vault provides liquidity in; null for stock-token vaults, which hold the token" }),
    limits: VaultLimits,
    withdrawals: z.array(WithdrawalMode).openapi({
      description: "How shares can be withdrawn: merged usdg and in-kind (and queue with a redeem queue); up queue and in-kind; stock-token usdg and in-kind",
    }),
    feeBps: z.number().int().openapi({ description: "The vault's fee on harvested income, in basis points" }),
    contracts: VaultContracts,
    updatedAt: Timestamp.openapi({ description: "When the vault's figures last moved: its own last change or its token's last trade" }),
  })
  .openapi("AgentVault", { description: "A vault agents may use, in any status" });

export const VaultHistoryPoint = z
  .object({
    time: Timestamp.openapi({ description: "The harvest's time" }),
    totalAssets: Whole("Total assets after the harvest, in the asset"),
    totalAssetsUnits: Units("Total assets after the harvest"),
    sharePrice: z.number().nullable().openapi({ description: "Assets per whole share then, in whole units of the asset" }),
    tvlUsd: z.number().openapi({ description: "Total assets in USD (USDG)" }),
  })
  .openapi("VaultHistoryPoint");

export const VaultIncome = z
  .object({
    gross: Whole("Harvested income before the vault's fee"),
    grossUnits: Units("Harvested income before the vault's fee"),
    fee: Whole("The vault's fee on it"),
    feeUnits: Units("The vault's fee on it"),
    net: Whole("Income after the fee (what shareholders earned)"),
    netUnits: Units("Income after the fee"),
  })
  .openapi("VaultIncome", { description: "Harvested income, in the vault's asset" });

export const AgentVaultDetail = z
  .object({
    address: Address.openapi({ description: "The vault" }),
    family: VaultFamily,
    name: z.string().openapi({ description: "Its name" }),
    status: VaultStatus,
    reason: z.string().openapi({ description: "The status in words" }),
    harvested: VaultIncome.openapi({ description: "All harvested income since the vault began" }),
    lastHarvestAt: Timestamp.nullable().openapi({ description: "The latest harvest; null before the first" }),
    history: z
      .array(VaultHistoryPoint)
      .nullable()
      .openapi({ description: "Merged vaults: one point per harvest over the last 7 days, oldest first. Null for up and stock-token vaults (no history)." }),
    agentVault: AgentVault,
  })
  .openapi("AgentVaultDetail", { description: "One vault's figures; merged vaults also carry 7 days of history" });

export const PricePoint = z
  .object({
    time: Timestamp.openapi({ description: "Start of the 10-minute bucket" }),
    open: z.number().openapi({ description: "USD per whole token at the bucket's first trade (the previous close in a bucket with no trade)" }),
    high: z.number().openapi({ description: "Highest price after a trade in the bucket" }),
    low: z.number().openapi({ description: "Lowest price after a trade in the bucket" }),
    close: z.number().openapi({ description: "Price after the bucket's last trade" }),
    volumeUsd: z.number().openapi({ description: "USDG side of the bucket's trades, in USD" }),
    trades: z.number().int().openapi({ description: "Trades in the bucket; 0 where the previous close was carried forward" }),
  })
  .openapi("PricePoint");

export const VaultPrices = z
  .object({
    vault: Address.openapi({ description: "The vault" }),
    token: VaultToken.openapi({ description: "The token whose USDG pool is priced" }),
    pool: Address.nullable().openapi({ description: "The token's USDG pool; null without one" }),
    stepSeconds: z.literal(600).openapi({ description: "Spacing of the points: 10 minutes" }),
    from: Timestamp.openapi({ description: "The window's start (7 days before `to`)" }),
    to: Timestamp.openapi({ description: "Start of the current (still open) bucket" }),
    gaps: z.literal("carry-forward").openapi({
      description:
        "A bucket with no trade repeats the previous close as open, high, low and close, with 0 trades, so there is a point every 10 minutes. Points start at the window's start, or at the token's first trade when its market is younger.",
    }),
    points: z.array(PricePoint).openapi({ description: "One point per 10 minutes, oldest first" }),
  })
  .openapi("VaultPrices", { description: "The vault pool's price every 10 minutes over 7 days" });

export const EarningsDay = z
  .object({
    day: z.string().openapi({ description: "The UTC day, YYYY-MM-DD", example: "2025-01-01" }),
    harvests: z.number().int().openapi({ description: "Harvests that day" }),
    gross: Whole("Income before the fee"),
    grossUnits: Units("Income before the fee"),
    fee: Whole("The vault's fee"),
    feeUnits: Units("The vault's fee"),
    net: Whole("Income after the fee"),
    netUnits: Units("Income after the fee"),
    grossUsd: z.number().openapi({ description: "Gross in USD (stock-token vaults: at the token's close that day)" }),
    feeUsd: z.number().openapi({ description: "Fee in USD" }),
    netUsd: z.number().openapi({ description: "Net in USD" }),
    cumulativeNet: Whole("Net income since the vault began, up to the end of the day"),
    cumulativeNetUnits: Units("Net income since the vault began"),
    cumulativeNetUsd: z.number().openapi({ description: "Sum of netUsd since the vault began (each day at its own price), up to the end of the day" }),
  })
  .openapi("EarningsDay");

export const VaultEarnings = z
  .object({
    vault: Address.openapi({ description: "The vault" }),
    asset: VaultToken.openapi({ description: "The asset income is counted in (USDG, or the stock token)" }),
    feeBps: z.number().int().openapi({ description: "The vault's fee on harvested income now, in basis points" }),
    from: z.string().openapi({ description: "First day of the series, YYYY-MM-DD: 90 days back, or the day of the vault's first harvest when later" }),
    to: z.string().openapi({ description: "Last day (today, UTC), YYYY-MM-DD" }),
    days: z.array(EarningsDay).openapi({ description: "One entry per UTC day from `from` to `to`, oldest first (days without a harvest have zeros)" }),
    totals: VaultIncome.extend({
      netUsd: z.number().openapi({ description: "Net income since the vault began, in USD (each day at its own price)" }),
    }).openapi({ description: "All income since the vault began" }),
  })
  .openapi("VaultEarnings", { description: "Earnings after fees over time: what the vault's shareholders earned, per day" });
