// Backtests and planners: requests and answers of POST /backtest/grid, /backtest/ladder, GET /ranges,
// /grid/tokens, /grid/plan, /ladder/tokens, /ladder/plan (under /v1/agent), and the 402 answer in the
// x402 shape. Figures are estimates: USD amounts are numbers rounded to the cent; lines meant for the
// prepare routes are decimal strings, as those routes take them.
import { z } from "@hono/zod-openapi";
import { Address, Timestamp } from "./fields.js";
import { CAIP2_NETWORK } from "../domain/chain.js";
import { USDG_DECIMALS } from "../domain/price.js";

const num = (description: string) => z.number().openapi({ description });
const nullableNum = (description: string) => z.number().nullable().openapi({ description });
const PriceText = (description: string) => z.string().openapi({ description, example: "2450.51" });

/** A price given as a number or a decimal string, USDG per whole token. */
/** Backtests one client may wait for at once (issue 32: fair queues); past it, 429 BUSY. */
export const BACKTEST_SHARE = 4;

export const PriceIn = z
  .union([z.number().positive({ error: "must be a positive price" }), z.string().regex(/^\d+(\.\d+)?$/, { error: "must be a decimal price" })])
  .transform((v) => Number(v))
  .refine((v) => v > 0 && Number.isFinite(v), { error: "must be a positive price" })
  .openapi({ description: "USDG per whole token: a number or a decimal string", example: "2450.5" });

const UsdIn = (min: number, description: string) =>
  z
    .number({ error: `must be a number of at least ${min}` })
    .min(min, { error: `must be at least ${min}` })
    .max(10_000_000, { error: "must be at most 10000000" })
    .openapi({ description });

const DaysIn = (max: number, dflt: number, description: string) =>
  z
    .number({ error: `must be an integer from 1 to ${max}` })
    .int({ error: `must be an integer from 1 to ${max}` })
    .min(1, { error: `must be an integer from 1 to ${max}` })
    .max(max, { error: `must be an integer from 1 to ${max}` })
    .default(dflt)
    .openapi({ description });

export const TokenRef = z
  .object({
    address: Address,
    symbol: z.string().openapi({ description: "The token's own symbol (check the address when verified is false)" }),
    category: z.string().openapi({ description: "stock, crypto, utility, meme or unclassified" }),
    verified: z.boolean().openapi({ description: "On the service's own token list" }),
  })
  .openapi("BacktestToken");

// ---------------------------------------------------------------- requests

export const GridBacktestBody = z
  .object({
    token: Address.openapi({ description: "The token (any token with a USDG market)" }),
    buyPrice: PriceIn,
    sellPrice: PriceIn,
    amountUsd: UsdIn(1, "USDG the grid starts with (the most each buy spends)"),
    repeat: z.boolean().default(true).openapi({ description: "Go on buy -> sell -> buy (default true); false stops after the first sell" }),
    days: DaysIn(90, 30, "Days of 10-minute candles to replay, 1-90 (default 30). Free up to 30; more answers 402."),
  })
  .refine((b) => b.sellPrice > b.buyPrice, { error: "sellPrice must be above buyPrice", path: ["sellPrice"] })
  .openapi({ title: "GridBacktestBody" });

export const LadderBacktestBody = z
  .object({
    token: Address.openapi({ description: "The token (any token with a USDG market)" }),
    side: z
      .enum(["buy", "sell"])
      .openapi({ description: "buy: each level buys the token with amountUsd of USDG; sell: each level sells the token worth amountUsd at its price" }),
    levels: z
      .array(z.object({ price: PriceIn, amountUsd: UsdIn(0.01, "USD of this level (at its price)") }))
      .min(1, { error: "must have 1-20 levels" })
      .max(20, { error: "must have 1-20 levels" })
      .openapi({ description: "1-20 one-shot limit orders" }),
    days: DaysIn(90, 30, "Days of 10-minute candles to replay, 1-90 (default 30). Free up to 30; more answers 402."),
  })
  .openapi({ title: "LadderBacktestBody" });

const intBase = (min: number, max: number) => {
  const msg = { error: `must be an integer from ${min} to ${max}` };
  return z.coerce.number(msg).int(msg).min(min, msg).max(max, msg);
};
const numBase = (min: number, max: number) => {
  const msg = { error: `must be a number from ${min} to ${max}` };
  return z.coerce.number(msg).min(min, msg).max(max, msg);
};
const meta = (name: string, description: string, type: "integer" | "number") => ({ param: { name, in: "query" as const }, description, type });
const intQuery = (min: number, max: number, dflt: number, description: string, name: string) =>
  intBase(min, max)
    .default(dflt)
    .openapi(meta(name, description, "integer"));
const intQueryOptional = (min: number, max: number, description: string, name: string) =>
  intBase(min, max)
    .optional()
    .openapi(meta(name, description, "integer"));
const numQuery = (min: number, max: number, dflt: number, description: string, name: string) =>
  numBase(min, max)
    .default(dflt)
    .openapi(meta(name, description, "number"));
const numQueryOptional = (min: number, max: number, description: string, name: string) =>
  numBase(min, max)
    .optional()
    .openapi(meta(name, description, "number"));
const tokenQuery = Address.openapi({ param: { name: "token", in: "query" }, description: "The token (address)" });
const includeQuery = z
  .enum(["good", "all"])
  .default("all")
  .openapi({
    param: { name: "include", in: "query" },
    description: "good: good verdicts only; all (default): good first, then weak (with reasons), then none",
  });

export const RangesQuery = z.object({
  token: tokenQuery,
  days: intQuery(1, 90, 14, "Days of 10-minute candles, 1-90 (default 14)", "days"),
  feeBps: intQueryOptional(0, 1000, "Fee per trade in basis points, 0-1000 (default: the grid strategy's live fee)", "feeBps"),
  amountUsd: numQuery(1, 10_000_000, 200, "USDG per grid (default 200)", "amountUsd"),
});

export const GridTokensQuery = z.object({
  limit: intQuery(1, 10, 5, "Tokens answered, 1-10 (default 5)", "limit"),
  category: z
    .enum(["any", "stock", "crypto", "utility", "meme", "unclassified"])
    .default("any")
    .openapi({ param: { name: "category", in: "query" }, description: "Token category (default any)" }),
  include: includeQuery,
});

export const GridPlanQuery = z.object({
  token: tokenQuery,
  amountUsd: numQuery(11, 10_000_000, 200, "USDG of the grid, at least 11 (default 200)", "amountUsd"),
  gap: numQueryOptional(
    0.005,
    0.5,
    "Lines this far apart (sell / buy - 1), 0.005-0.5, instead of the planner's pick; at or under the fee's break-even answers 422 GAP_TOO_TIGHT",
    "gap",
  ),
  days: intQuery(28, 90, 60, "Days of hourly prices walked forward, 28-90 (default 60)", "days"),
});

export const LadderTokensQuery = z.object({ limit: intQuery(1, 10, 5, "Tokens answered, 1-10 (default 5)", "limit"), include: includeQuery });

export const LadderPlanQuery = z.object({
  token: tokenQuery,
  amountUsd: numQuery(55, 10_000_000, 500, "USDG over the 5 parts, at least 55 (default 500)", "amountUsd"),
});

// ---------------------------------------------------------------- answers

const Window = {
  from: Timestamp.openapi({ description: "Start of the first candle replayed" }),
  to: Timestamp.openapi({ description: "End of the last candle replayed" }),
  candles: z.number().int().openapi({ description: "Candles replayed" }),
};
const Note = z.string().openapi({ description: "Backtests are estimates, not quotes" });

export const GridTrade = z.object({
  time: Timestamp.openapi({ description: "Start of the candle that filled it" }),
  side: z.enum(["buy", "sell"]),
  price: num("The line's price (fills are at the line)"),
  usdg: num("USDG spent (buy, fee included) or received (sell, after the fee)"),
  tokens: num("Tokens bought or sold, whole units"),
  feeUsd: num("Strategy fee of this trade, USDG"),
});

export const GridBacktestResult = z
  .object({
    token: TokenRef,
    ...Window,
    candleMinutes: z.number().int().openapi({ description: "Candle length (10)" }),
    feeBps: z.number().int().openapi({ description: "The grid strategy's live fee used" }),
    params: z.object({
      buyPrice: PriceText("Buy line"),
      sellPrice: PriceText("Sell line"),
      amountUsd: num("Starting USDG"),
      repeat: z.boolean(),
      days: z.number().int(),
    }),
    trades: z.number().int().openapi({ description: "Buys plus sells" }),
    buys: z.number().int(),
    sells: z.number().int(),
    roundTrips: z.number().int().openapi({ description: "Buys followed by their sell" }),
    feesUsd: num("Strategy fees paid, USDG"),
    realisedProfitUsd: num("Sum of the round trips' profits"),
    profitUsd: num("End value minus the starting amount"),
    returnPct: num("profitUsd over the starting amount, percent"),
    endValueUsd: num("USDG held plus the token held at the last close"),
    endUsdg: num("USDG held at the end"),
    endTokens: num("Token held at the end, whole units"),
    holdsToken: z.boolean().openapi({ description: "Waiting to sell at the end" }),
    stopped: z.boolean().openapi({ description: "Stopped after its sell (repeat false)" }),
    lastClose: nullableNum("Last candle's close"),
    holdReturnPct: num("Holding the token over the same candles (first open to last close, no fees), percent"),
    tradeList: z.array(GridTrade).openapi({ description: "The latest 200 trades at most, oldest first" }),
    tradeListTruncated: z.boolean().openapi({ description: "More trades happened than are listed" }),
    note: Note,
  })
  .openapi("GridBacktestResult");

export const LadderBacktestResult = z
  .object({
    token: TokenRef,
    ...Window,
    candleMinutes: z.number().int(),
    feeBps: z.number().int().openapi({ description: "The limit-order hook's live commission used" }),
    side: z.enum(["buy", "sell"]),
    days: z.number().int(),
    levels: z.array(
      z.object({
        price: PriceText("The level's price"),
        amountUsd: num("USD of the level at its price"),
        filled: z.boolean(),
        filledAt: Timestamp.nullable().openapi({ description: "Start of the candle that filled it, or null" }),
        amountIn: num("Input: USDG (buy) or token (sell), whole units"),
        amountOut: num("Output after the commission: token (buy) or USDG (sell); 0 unfilled"),
        commission: num("Commission, in the output token"),
        commissionUsd: num("Commission in USD at the level's price"),
      }),
    ),
    filledLevels: z.number().int(),
    feesUsd: num("Commission of every fill, USD"),
    startValueUsd: num("What the levels held at the start (sell levels: tokens at the first open)"),
    endValueUsd: num("USDG plus token at the last close"),
    profitUsd: num("endValueUsd - startValueUsd"),
    returnPct: num("Percent"),
    lastClose: nullableNum("Last candle's close"),
    holdReturnPct: num("Holding the token over the same candles, percent"),
    note: Note,
  })
  .openapi("LadderBacktestResult");

const RangeLine = z
  .object({
    buyPrice: PriceText("Buy line"),
    sellPrice: PriceText("Sell line"),
    gap: num("sell / buy - 1"),
    roundTrips: z.number().int(),
    profitUsd: num("Profit after fees, end value marked at the last close"),
    returnPct: num("Percent of amountUsd"),
  })
  .nullable()
  .openapi("RangeLine", { description: "A grid's lines and their result, or null when no line of that gap made a round trip" });

export const RangesResult = z
  .object({
    token: TokenRef,
    ...Window,
    days: z.number().int(),
    feeBps: z.number().int(),
    amountUsd: num("USDG per grid"),
    low: num("Lowest low of the window"),
    high: num("Highest high of the window"),
    gaps: z.array(z.object({ gap: num("sell / buy - 1"), byRoundTrips: RangeLine, byProfit: RangeLine })).openapi({
      description:
        "Every gap the fee allows (above its break-even), each with the buy line of most round trips and of most profit (48 buy lines tried per gap)",
    }),
    bestByRoundTrips: RangeLine,
    bestByProfit: RangeLine,
    note: Note,
  })
  .openapi("RangesResult");

const GridLines = z
  .object({
    action: z.literal("open").openapi({ description: "action of the grid prepare" }),
    token: Address.openapi({ description: "token of the grid prepare" }),
    buyPrice: PriceText("buyPrice of the grid prepare"),
    sellPrice: PriceText("sellPrice of the grid prepare"),
    amountUsdg: z.string().openapi({ description: "amountUsdg (whole USDG) of the grid prepare" }),
    gap: num("sell / buy - 1"),
  })
  .nullable()
  .openapi("GridLines", { description: "A grid prepare body: add `owner` and POST it to /v1/agent/prepare/grid (gap is ignored there)" });

const PrepareHint = (route: string) =>
  z
    .object({
      route: z.string().openapi({ description: `The prepare route (${route})` }),
      body: z.record(z.string(), z.unknown()).openapi({ description: "Its body: add `owner` (your wallet) and send it" }),
    })
    .nullable();

export const GridPlanResult = z
  .object({
    token: TokenRef,
    verdict: z.enum(["good", "weak", "none"]),
    reasons: z.array(z.string()),
    feeBps: z.number().int().openapi({ description: "The grid strategy's live fee" }),
    minGap: num("The fee's break-even gap: a gap must be above it"),
    days: z.number().int(),
    windowDays: z.number().int().openapi({ description: "Walk-forward window: 7 days (shorter, in whole days, with under 14 days of prices)" }),
    lastClose: nullableNum("Latest hourly close"),
    today: GridLines,
    tighter: GridLines,
    wider: GridLines,
    windows: z
      .array(
        z.object({
          from: Timestamp,
          to: Timestamp,
          buyPrice: PriceText("Lines picked on the window before"),
          sellPrice: PriceText("Sell line"),
          gap: num("Gap"),
          roundTrips: z.number().int(),
          profitUsd: num("Profit of the window"),
          returnPct: num("Percent"),
          holdReturnPct: num("Holding over the window, percent"),
        }),
      )
      .openapi({ description: "Weekly results: each window's lines were picked on the window before it" }),
    averageReturnPct: nullableNum("Average window"),
    worstReturnPct: nullableNum("Worst window"),
    positiveWindows: z.number().int(),
    prepare: PrepareHint("/v1/agent/prepare/grid"),
  })
  .openapi("GridPlanResult");

export const GridPlanAnswer = GridPlanResult.extend({ note: Note }).openapi("GridPlanAnswer");

export const DipLadderResult = z
  .object({
    token: TokenRef,
    verdict: z.enum(["good", "weak", "none"]),
    reasons: z.array(z.string()),
    warnings: z.array(z.string()),
    feeBps: z.number().int().openapi({ description: "The ladder strategy's live fee" }),
    amountUsd: num("USDG over the 5 parts"),
    lastClose: nullableNum("Latest hourly close"),
    record: z.object({
      starts: z.number().int().openapi({ description: "UTC midnights of the last 30 days with a price" }),
      completeStarts: z.number().int().openapi({ description: "Starts held a full week" }),
      positiveStarts: z.number().int(),
      startsWithFill: z.number().int(),
      averageReturnPct: nullableNum("Average start"),
      worstReturnPct: nullableNum("Worst start"),
      bestReturnPct: nullableNum("Best start"),
      averageHoldReturnPct: nullableNum("Holding the token instead, average"),
      runs: z.array(
        z.object({
          start: Timestamp,
          end: Timestamp,
          complete: z.boolean(),
          startPrice: num("Price at the start"),
          buys: z.number().int(),
          sells: z.number().int(),
          endValueUsd: num("Value at the end"),
          returnPct: num("Percent"),
          holdReturnPct: num("Holding, percent"),
        }),
      ),
    }),
    today: z.array(z.object({ buyPrice: PriceText("Buy line"), sellPrice: PriceText("Sell line (+50% after fees)"), amountUsd: num("USDG of the part") })),
    prepare: PrepareHint("/v1/agent/prepare/ladder-strategy"),
  })
  .openapi("DipLadderResult");

export const LadderPlanAnswer = DipLadderResult.extend({ note: Note }).openapi("LadderPlanAnswer");

export const GridTokensAnswer = z
  .object({
    asOf: Timestamp.openapi({ description: "When the scan ran (its candles end here)" }),
    scannedAt: Timestamp,
    feeBps: z.number().int(),
    days: z.number().int(),
    amountUsd: num("USDG the scan planned with"),
    scanned: z.number().int().openapi({ description: "Tokens scanned" }),
    tokens: z.array(GridPlanResult),
  })
  .openapi("GridTokensAnswer");

export const LadderTokensAnswer = z
  .object({
    asOf: Timestamp,
    scannedAt: Timestamp,
    feeBps: z.number().int(),
    amountUsd: num("USDG the record uses"),
    scanned: z.number().int(),
    tokens: z.array(DipLadderResult),
  })
  .openapi("LadderTokensAnswer");

// ---------------------------------------------------------------- 402 (x402 v2)

const PaymentRequirements = z
  .object({
    scheme: z.literal("exact"),
    network: z.literal(CAIP2_NETWORK).openapi({ description: `The chain, as CAIP-2 names it (${CAIP2_NETWORK})` }),
    asset: Address.openapi({ description: "USDG (EIP-3009 transferWithAuthorization)" }),
    amount: z.string().openapi({ description: `The price in USDG base units (${USDG_DECIMALS} decimals)`, example: "300000" }),
    payTo: Address.openapi({ description: "The payee" }),
    maxTimeoutSeconds: z.number().int().openapi({ description: "How long a signed payment may take to settle" }),
    extra: z
      .object({ name: z.string(), version: z.string() })
      .openapi({ description: "USDG's EIP-712 domain (name, version) that the payment authorization is signed over" }),
  })
  .openapi("PaymentRequirements");

/** The request header that pays a run past the free window (x402 v2). */
export const PaymentHeaders = z.object({
  "payment-signature": z
    .string()
    .optional()
    .openapi({
      param: { name: "payment-signature", in: "header" },
      description: "PAYMENT-SIGNATURE: the x402 v2 payment payload, base64 JSON (x402 clients make it); pays a run past 30 days, ignored on a free one",
    }),
});

export const PaymentRequiredBody = z
  .object({
    error: z.string().openapi({ description: "What to pay and how, or why the payment sent was refused (the x402 reason)" }),
    code: z.literal("PAYMENT_REQUIRED"),
    x402Version: z.literal(2),
    resource: z.object({ url: z.string(), description: z.string(), mimeType: z.string() }).openapi({ description: "What is paid for, and its price in words" }),
    accepts: z.array(PaymentRequirements).openapi({ description: "The one way to pay: exact, USDG on this chain, to the payee" }),
    details: z
      .object({
        reason: z.string().openapi({ description: "x402's reason (as `error` in the PAYMENT-REQUIRED header)", example: "invalid_exact_evm_signature" }),
        check: z.string().optional().openapi({ description: "Which check failed, in words, when the facilitator says (e.g. ECDSA, ERC-1271, ERC-6492)" }),
        remedy: z.string().openapi({ description: "What the payer can do" }),
      })
      .optional()
      .openapi({ description: "Only when a payment sent was refused: why, and what to do" }),
  })
  .openapi("PaymentRequired", {
    description:
      "x402 v2's PaymentRequired (also in the PAYMENT-REQUIRED header, base64 JSON, where x402 clients read it), in the error envelope. " +
      "Sign an EIP-3009 TransferWithAuthorization of exactly `amount` USDG to `payTo` (x402's `exact` scheme; @x402/fetch does it) and send the " +
      "payment payload in the PAYMENT-SIGNATURE header: the run happens, the facilitator settles it, and the answer carries PAYMENT-RESPONSE " +
      "(the settlement transaction). An invalid, underpaid, expired, replayed or misdirected payment answers 402 again with the reason.",
  });
