// The strategy finder's public routes (/v1/strategy-finder...): queries, bodies and answers.
import { z } from "@hono/zod-openapi";
import { Address, Timestamp } from "./fields.js";
import { PriceIn, TokenRef } from "./backtests.js";

const num = (description: string) => z.number().openapi({ description });
const nullableNum = (description: string) => z.number().nullable().openapi({ description });
const Note = z.string().openapi({ description: "Backtests are estimates, not quotes" });

/**
 * On-demand runs one client may make in a day (issue 32: bounded state per client): every run is logged and
 * kept 90 days, so a client's share of the log is at most this a day. Past it, 429 RATE_LIMITED.
 */
export const FINDER_RUNS_PER_CLIENT_PER_DAY = 200;

export const Period = z
  .string()
  .regex(/^([1-9]|[12][0-9]|30)d$/, { error: "must be a number of days from 1d to 30d, e.g. 7d" })
  .openapi({ description: "A window of N days, 1d to 30d", example: "7d" });

export const Style = z.enum(["grid", "dip-ladder", "vault"]).openapi({
  description:
    "grid (a repeating grid, lines picked walk-forward), dip-ladder (5 buys 10% apart, +50% after fees), vault (a 500 USD deposit at the window start valued now after its fees)",
});

const budgetQuery = z.coerce
  .number({ error: "must be a number from 10 to 10000000" })
  .min(10, { error: "must be a number from 10 to 10000000" })
  .max(10_000_000, { error: "must be a number from 10 to 10000000" })
  .default(500)
  .openapi({ param: { name: "budget", in: "query" }, description: "USD per result (default 500): pnl figures scale with it", type: "number" });

export const BoardQuery = z.object({
  budget: budgetQuery,
  period: Period.default("7d").openapi({ param: { name: "period", in: "query" }, description: "Window, 1d-30d (default 7d)" }),
  token: Address.optional().openapi({ param: { name: "token", in: "query" }, description: "Only this token (widened when it has nothing positive)" }),
  category: z
    .enum(["stock", "crypto", "utility", "meme", "unclassified"])
    .optional()
    .openapi({ param: { name: "category", in: "query" }, description: "Only this category (widened when it has nothing positive)" }),
  strategy: Style.optional().openapi({ param: { name: "strategy", in: "query" }, description: "Only this style (vault lists vaults)" }),
});

export const TokenPageQuery = z.object({
  period: Period.default("7d").openapi({ param: { name: "period", in: "query" }, description: "Window, 1d-30d (default 7d)" }),
  budget: budgetQuery,
});

export const TokenParam = z.object({ token: Address.openapi({ param: { name: "token", in: "path" }, description: "The token's address" }) });

export const AttemptsQuery = z.object({
  kind: z.literal("wallet").openapi({ param: { name: "kind", in: "query" }, description: "wallet: the runs made with this wallet's signed-in owner session" }),
  value: Address.openapi({ param: { name: "value", in: "query" }, description: "The wallet" }),
});

export const FinderBacktestBody = z
  .object({
    token: Address.openapi({ description: "Any token with a USDG market" }),
    strategy: z.enum(["grid", "dip-ladder"]),
    variant: z
      .enum(["standard", "tighter", "wider"])
      .optional()
      .openapi({ description: "Walk-forward (no settings): which of the planner's lines to give as run parameters (grid)" }),
    settings: z
      .object({
        buyPrice: PriceIn.optional(),
        sellPrice: PriceIn.optional(),
        startPrice: PriceIn.optional().openapi({ description: "dip-ladder: the price its 5 buys are placed below (default: the window's first open)" }),
      })
      .optional()
      .openapi({ description: "Fixed settings: grid needs buyPrice and sellPrice; replayed over `period`" }),
    budgetUsd: z.number().min(10).max(10_000_000).default(500).openapi({ description: "USD (default 500)" }),
    days: z
      .number()
      .int()
      .min(21, { error: "must be an integer from 21 to 60" })
      .max(60, { error: "must be an integer from 21 to 60" })
      .optional()
      .openapi({ description: "Walk-forward: days of hourly prices, 21-60 (default 30)" }),
    period: Period.optional().openapi({ description: "Fixed settings: the window replayed (default 7d)" }),
    identity: z
      .object({ kind: z.literal("wallet"), value: Address })
      .optional()
      .openapi({
        description:
          "Informational: a run counts for a wallet (GET /v1/strategy-finder/attempts) only with that wallet's owner session in `Authorization: Bearer`, never by this field",
      }),
  })
  .refine((b) => !(b.variant && b.settings), { error: "give variant or settings, not both", path: ["settings"] })
  .openapi({ title: "FinderBacktestBody" });

const runShape = () =>
  z.object({
    route: z.string().openapi({ description: "The prepare route" }),
    body: z.record(z.string(), z.unknown()).openapi({ description: "Its body: add `owner` (your wallet)" }),
  });
const Run = runShape().openapi("FinderRun", { description: "Run parameters for the prepare routes" });

const Subject = z
  .union([
    z.object({ kind: z.literal("token"), token: TokenRef }),
    z.object({
      kind: z.literal("vault"),
      vault: z.object({ address: Address, name: z.string(), family: z.string() }),
      token: z.union([TokenRef, z.null()]).openapi({ description: "The token the vault pairs with USDG or holds; null when it has no market" }),
    }),
  ])
  .openapi("FinderSubject", { description: "The token, or the vault (with its paired token)" });

const Figures = {
  style: Style,
  from: Timestamp.openapi({ description: "Window start" }),
  to: Timestamp.openapi({ description: "Window end (the board's time)" }),
  periodDays: z.number().int(),
  returnPct: num("Result over the window, after fees, percent"),
  pnlUsd: num("returnPct of the budget, USD"),
  holdReturnPct: num("Holding the token over the window, no fees, percent"),
  holdPnlUsd: num("holdReturnPct of the budget, USD"),
  trades: z.number().int(),
};

const TrackSummary = z.object({
  picks: z.number().int().openapi({ description: "Picks followed so far" }),
  finished: z.number().int().openapi({ description: "Picks followed their full 7 days" }),
  averageReturnPct: nullableNum("Average of the finished picks"),
  positive: z.number().int().openapi({ description: "Finished picks above their start" }),
});

export const BoardAnswer = z
  .object({
    asOf: Timestamp.openapi({ description: "When the board was computed" }),
    period: z.string().openapi({ description: "The window shown" }),
    requestedPeriod: z.string(),
    budgetUsd: num("Budget"),
    widened: z.string().nullable().openapi({ description: "Set when the slice had nothing positive and the board widened" }),
    shorterWindow: z.string().nullable().openapi({ description: "Set when nothing had the window yet and a shorter one is shown" }),
    fees: z.object({ gridFeeBps: z.number().int(), ladderFeeBps: z.number().int() }),
    results: z
      .array(
        z.object({
          rank: z.number().int(),
          ...Figures,
          subject: Subject,
          walkForward: z
            .object({
              kind: z.string(),
              windows: z.number().int(),
              averageReturnPct: nullableNum("Average"),
              worstReturnPct: nullableNum("Worst"),
              positive: z.number().int(),
            })
            .nullable()
            .openapi({ description: "Walk-forward test: grid weekly windows (lines picked on the week before) or dip-ladder starts; null for vaults" }),
          run: Run,
          nextSteps: z.array(z.string()),
        }),
      )
      .openapi({ description: "Best first; at most 2 per token and 6 per style" }),
    trackRecord: TrackSummary,
    note: Note,
  })
  .openapi("StrategyFinderBoard");

export const TokenPageAnswer = z
  .object({
    asOf: Timestamp,
    token: TokenRef,
    period: z.string(),
    budgetUsd: num("Budget"),
    styles: z.array(
      z.object({
        style: Style,
        result: z
          .object({ ...Figures, run: Run, nextSteps: z.array(z.string()) })
          .nullable()
          .openapi({ description: "The window's result (or the longest shorter one), null without history" }),
        chips: z
          .array(z.object({ period: z.string(), returnPct: nullableNum("Result"), holdReturnPct: nullableNum("Holding") }))
          .openapi({ description: "Results over 1d, 7d, 14d and 30d" }),
        walkForward: z
          .array(z.object({ start: Timestamp, end: Timestamp, complete: z.boolean(), returnPct: num("Result"), holdReturnPct: num("Holding") }))
          .openapi({ description: "Each walk-forward start's result" }),
        latestTrades: z
          .array(z.object({ time: Timestamp, side: z.enum(["buy", "sell"]), price: num("Line"), usdg: num("USDG") }))
          .openapi({ description: "Grid: the latest start's trades" }),
      }),
    ),
    note: Note,
  })
  .openapi("StrategyFinderToken");

export const TrackRecordAnswer = z
  .object({
    followDays: z.number().int(),
    summary: TrackSummary,
    picks: z.array(
      z.object({
        day: z.string().openapi({ description: "UTC day of the pick" }),
        rank: z.number().int(),
        style: z.string(),
        token: z.object({ address: Address, symbol: z.string() }),
        periodDays: z.number().int(),
        boardReturnPct: num("Its board result when picked"),
        startPrice: num("Price when picked"),
        startedAt: Timestamp,
        params: z.record(z.string(), z.string()).openapi({ description: "The settings followed (lines or start price)" }),
        paper: z
          .object({ returnPct: num("Result so far"), holdReturnPct: num("Holding so far"), trades: z.number().int(), followedUntil: Timestamp })
          .nullable(),
        done: z.boolean(),
      }),
    ),
    note: z.string(),
  })
  .openapi("StrategyFinderTrackRecord");

const Start = z.object({
  start: Timestamp,
  end: Timestamp,
  returnPct: num("Result"),
  pnlUsd: num("USD"),
  holdReturnPct: num("Holding"),
  trades: z.number().int(),
});

export const FinderBacktestAnswer = z
  .union([
    z.object({
      mode: z.literal("walk-forward"),
      token: TokenRef,
      strategy: z.enum(["grid", "dip-ladder"]),
      variant: z.string(),
      budgetUsd: num("Budget"),
      days: z.number().int(),
      feeBps: z.number().int(),
      verdict: z.enum(["good", "weak", "none"]),
      reasons: z.array(z.string()),
      starts: z.array(Start).openapi({ description: "Each walk-forward start's result" }),
      averageReturnPct: nullableNum("Average start"),
      worstReturnPct: nullableNum("Worst start"),
      run: runShape().nullable().openapi({ description: "Run parameters for the prepare routes (null when the walk-forward found no lines)" }),
      note: Note,
    }),
    z.object({
      mode: z.literal("fixed"),
      token: TokenRef,
      strategy: z.enum(["grid", "dip-ladder"]),
      budgetUsd: num("Budget"),
      period: z.string(),
      feeBps: z.number().int(),
      from: Timestamp,
      to: Timestamp,
      returnPct: num("Result"),
      pnlUsd: num("USD"),
      holdReturnPct: num("Holding"),
      holdPnlUsd: num("Holding, USD"),
      trades: z.number().int(),
      roundTrips: z.number().int(),
      feesUsd: num("Fees"),
      note: Note,
    }),
  ])
  .openapi("FinderBacktestResult");

export const AttemptsAnswer = z
  .object({ kind: z.literal("wallet"), value: Address, runs: z.number().int(), lastRunAt: Timestamp.nullable(), scope: z.string() })
  .openapi("StrategyFinderAttempts");
