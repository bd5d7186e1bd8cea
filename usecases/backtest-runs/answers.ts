// The backtests' and planners' answers: load the candles, run the pure simulation (domain/backtest/)
// and shape what the routes answer.
import type { Kysely } from "kysely";
import { planDipLadder, type DipLine } from "../../domain/backtest/dip-ladder.js";
import { iso, pct, priceString, usd } from "../../domain/backtest/format.js";
import { backtestGrid } from "../../domain/backtest/grid.js";
import { planGrid, type GridLines, type GridPlan } from "../../domain/backtest/grid-plan.js";
import { backtestLadder } from "../../domain/backtest/ladder.js";
import { findRanges, type RangeLine } from "../../domain/backtest/ranges.js";
import type { PriceSeries } from "../../domain/backtest/series.js";
import { ApiError } from "../../domain/errors.js";
import type { Projections } from "../../adapters/db/projections.js";
import { getAddress } from "viem";
import { readChartedToken, type ChartedToken } from "../../adapters/db/reads/candles.js";
import { hasSeries, loadSeries, type CandleStep } from "./candles.js";
import type { BacktestInputs } from "./jobs.js";
import { DAY_S } from "../../domain/price.js";

const DAY = DAY_S;
/** The window of a replay over `days` up to `asOf` (grid and ladder backtests, ranges). */
const replayWindow = (days: number, asOf: number) => [asOf - days * DAY, asOf] as const;
/** Trades listed in a grid backtest answer (the latest ones); the counts cover them all. */
export const MAX_LISTED_TRADES = 200;

export type BacktestContext = { reads: Kysely<Projections> };

export const NOTE = "Estimates over past candles, not quotes: past results do not predict results, and fills can come at a loss after fees.";

export function tokenRef(t: ChartedToken) {
  return { address: getAddress(t.address), symbol: t.symbol, category: t.category, verified: t.verified };
}

/** The charted token; 422 NO_CANDLES without a USDG market. */
async function chartedToken(ctx: BacktestContext, token: string): Promise<ChartedToken> {
  const t = await readChartedToken(ctx.reads, token);
  if (!t) throw new ApiError("NO_CANDLES", "No price history: the token has no USDG market here");
  return t;
}

const noHistory = (t: ChartedToken) => new ApiError("NO_CANDLES", `No price history for ${t.symbol} in this window`);

/** The token and its candles; 422 NO_CANDLES without a market or any candle. */
export async function tokenSeries(ctx: BacktestContext, token: string, from: number, to: number, step: CandleStep) {
  const t = await chartedToken(ctx, token);
  const s = await loadSeries(ctx.reads, token, from, to, step);
  if (s.length < 2) throw noHistory(t);
  return { token: t, series: s };
}

/**
 * 422 NO_CANDLES exactly when a replay over `days` of 10-minute candles (grid and ladder backtests,
 * ranges) would answer it, without loading the candles: a paid run checks it before asking for payment,
 * so a payment is never taken for a run that cannot happen.
 */
export async function checkReplayable(ctx: BacktestContext, token: string, days: number, asOf: number): Promise<void> {
  const t = await chartedToken(ctx, token);
  if (!(await hasSeries(ctx.reads, token, ...replayWindow(days, asOf), "10m"))) throw noHistory(t);
}

const holdPct = (s: PriceSeries) => pct((s.close[s.length - 1]! / s.open[0]! - 1) * 100);

/** The head of a replay's answer: the token, the 10-minute candles replayed and the fee. */
const replayHead = (token: ChartedToken, series: PriceSeries, feeBps: number) => ({
  token: tokenRef(token),
  from: iso(series.start[0]!),
  to: iso(series.start[series.length - 1]! + 600),
  candles: series.length,
  candleMinutes: 10,
  feeBps,
});

export async function gridBacktest(ctx: BacktestContext, i: BacktestInputs["grid"], asOf: number) {
  const { token, series } = await tokenSeries(ctx, i.token, ...replayWindow(i.days, asOf), "10m");
  const r = backtestGrid(series, {
    buyPrice: i.buyPrice,
    sellPrice: i.sellPrice,
    amountUsd: i.amountUsd,
    repeat: i.repeat,
    feeBps: i.feeBps,
    recordTrades: true,
  });
  const listed = r.tradeList.slice(-MAX_LISTED_TRADES);
  return {
    ...replayHead(token, series, i.feeBps),
    params: { buyPrice: priceString(i.buyPrice), sellPrice: priceString(i.sellPrice), amountUsd: i.amountUsd, repeat: i.repeat, days: i.days },
    trades: r.trades,
    buys: r.buys,
    sells: r.sells,
    roundTrips: r.roundTrips,
    feesUsd: usd(r.feesUsd),
    realisedProfitUsd: usd(r.realisedProfitUsd),
    profitUsd: usd(r.profitUsd),
    returnPct: pct(r.returnPct),
    endValueUsd: usd(r.endValueUsd),
    endUsdg: usd(r.usdg),
    endTokens: r.tokens,
    holdsToken: r.holdsToken,
    stopped: !r.active,
    lastClose: r.lastClose,
    holdReturnPct: holdPct(series),
    tradeList: listed.map((t) => ({ time: iso(t.time), side: t.side, price: t.price, usdg: usd(t.usdg), tokens: t.tokens, feeUsd: usd(t.feeUsd) })),
    tradeListTruncated: listed.length < r.tradeList.length,
    note: NOTE,
  };
}

export async function ladderBacktest(ctx: BacktestContext, i: BacktestInputs["ladder"], asOf: number) {
  const { token, series } = await tokenSeries(ctx, i.token, ...replayWindow(i.days, asOf), "10m");
  const r = backtestLadder(series, { side: i.side, levels: i.levels, feeBps: i.feeBps });
  return {
    ...replayHead(token, series, i.feeBps),
    side: i.side,
    days: i.days,
    levels: r.levels.map((l) => ({
      price: priceString(l.price),
      amountUsd: l.amountUsd,
      filled: l.filled,
      filledAt: l.filledAt === null ? null : iso(l.filledAt),
      amountIn: l.amountIn,
      amountOut: l.amountOut,
      commission: l.commission,
      commissionUsd: usd(l.commissionUsd),
    })),
    filledLevels: r.filledLevels,
    feesUsd: usd(r.feesUsd),
    startValueUsd: usd(r.startValueUsd),
    endValueUsd: usd(r.endValueUsd),
    profitUsd: usd(r.profitUsd),
    returnPct: pct(r.returnPct),
    lastClose: r.lastClose,
    holdReturnPct: holdPct(series),
    note: NOTE,
  };
}

const rangeLine = (l: RangeLine | null) =>
  l && {
    buyPrice: priceString(l.buyPrice),
    sellPrice: priceString(l.sellPrice),
    gap: l.gap,
    roundTrips: l.roundTrips,
    profitUsd: usd(l.profitUsd),
    returnPct: pct(l.returnPct),
  };

export async function ranges(ctx: BacktestContext, i: BacktestInputs["ranges"], asOf: number) {
  const { token, series } = await tokenSeries(ctx, i.token, ...replayWindow(i.days, asOf), "10m");
  const r = findRanges(series, { amountUsd: i.amountUsd, feeBps: i.feeBps });
  return {
    token: tokenRef(token),
    from: iso(series.start[0]!),
    to: iso(series.start[series.length - 1]! + 600),
    candles: series.length,
    days: i.days,
    feeBps: i.feeBps,
    amountUsd: i.amountUsd,
    low: r.low,
    high: r.high,
    gaps: r.gaps.map((g) => ({ gap: g.gap, byRoundTrips: rangeLine(g.byRoundTrips), byProfit: rangeLine(g.byProfit) })),
    bestByRoundTrips: rangeLine(r.bestByRoundTrips),
    bestByProfit: rangeLine(r.bestByProfit),
    note: NOTE,
  };
}

/** A plan's lines as a grid prepare body: with `owner` added, POST /v1/agent/prepare/grid opens them. */
export const gridLines = (token: string, l: GridLines | null) =>
  l && {
    action: "open" as const,
    token: getAddress(token),
    buyPrice: priceString(l.buyPrice),
    sellPrice: priceString(l.sellPrice),
    amountUsdg: String(l.amountUsdg),
    gap: pct(l.gap * 10000) / 10000,
  };

/** The grid plan's answer shape (also each entry of the grid scan). */
export function gridPlanAnswer(token: ChartedToken, plan: GridPlan, days: number) {
  return {
    token: tokenRef(token),
    verdict: plan.verdict,
    reasons: plan.reasons,
    feeBps: plan.feeBps,
    minGap: plan.minGap,
    days,
    windowDays: plan.windowDays,
    lastClose: plan.lastClose,
    today: gridLines(token.address, plan.today),
    tighter: gridLines(token.address, plan.tighter),
    wider: gridLines(token.address, plan.wider),
    windows: plan.windows.map((w) => ({
      from: iso(w.from),
      to: iso(w.to),
      buyPrice: priceString(w.buyPrice),
      sellPrice: priceString(w.sellPrice),
      gap: w.gap,
      roundTrips: w.roundTrips,
      profitUsd: usd(w.profitUsd),
      returnPct: pct(w.returnPct),
      holdReturnPct: pct(w.holdReturnPct),
    })),
    averageReturnPct: plan.averageReturnPct === null ? null : pct(plan.averageReturnPct),
    worstReturnPct: plan.worstReturnPct === null ? null : pct(plan.worstReturnPct),
    positiveWindows: plan.positiveWindows,
    prepare: plan.today
      ? {
          route: "/v1/agent/prepare/grid",
          body: {
            action: "open",
            token: getAddress(token.address),
            buyPrice: priceString(plan.today.buyPrice),
            sellPrice: priceString(plan.today.sellPrice),
            amountUsdg: String(plan.today.amountUsdg),
            repeat: true,
          },
        }
      : null,
  };
}

export async function gridPlan(ctx: BacktestContext, i: BacktestInputs["grid-plan"], asOf: number) {
  const { token, series } = await tokenSeries(ctx, i.token, asOf - i.days * DAY, asOf, "1h");
  return { ...gridPlanAnswer(token, planGrid(series, { amountUsd: i.amountUsd, feeBps: i.feeBps, gap: i.gap, now: asOf, days: i.days }), i.days), note: NOTE };
}

/** The ladder-strategy prepare body of the dip ladder's lines (the caller adds `owner`). */
export function dipPrepareBody(token: string, lines: DipLine[]) {
  return {
    action: "open",
    token: getAddress(token),
    legs: lines.map((l) => ({ buyPrice: priceString(l.buyPrice), sellPrice: priceString(l.sellPrice), amount: usd(l.amountUsd).toFixed(2) })),
    repeat: true,
  };
}

/** The ladder plan's answer shape (also each entry of the ladder scan). */
export function ladderPlanAnswer(token: ChartedToken, series: PriceSeries, asOf: number, amountUsd: number, feeBps: number) {
  const plan = planDipLadder(series, asOf, amountUsd, feeBps);
  const rec = plan.record;
  return {
    token: tokenRef(token),
    verdict: plan.verdict,
    reasons: plan.reasons,
    warnings: plan.warnings,
    feeBps,
    amountUsd,
    lastClose: plan.lastClose,
    record: {
      starts: rec.starts,
      completeStarts: rec.completeStarts,
      positiveStarts: rec.positiveStarts,
      startsWithFill: rec.startsWithFill,
      averageReturnPct: rec.averageReturnPct === null ? null : pct(rec.averageReturnPct),
      worstReturnPct: rec.worstReturnPct === null ? null : pct(rec.worstReturnPct),
      bestReturnPct: rec.bestReturnPct === null ? null : pct(rec.bestReturnPct),
      averageHoldReturnPct: rec.averageHoldReturnPct === null ? null : pct(rec.averageHoldReturnPct),
      runs: rec.runs.map((r) => ({
        start: iso(r.start),
        end: iso(r.end),
        complete: r.complete,
        startPrice: r.startPrice,
        buys: r.buys,
        sells: r.sells,
        endValueUsd: usd(r.endValueUsd),
        returnPct: pct(r.returnPct),
        holdReturnPct: pct(r.holdReturnPct),
      })),
    },
    today: plan.today.map((l) => ({ buyPrice: priceString(l.buyPrice), sellPrice: priceString(l.sellPrice), amountUsd: usd(l.amountUsd) })),
    prepare: plan.today.length ? { route: "/v1/agent/prepare/ladder-strategy", body: dipPrepareBody(token.address, plan.today) } : null,
  };
}

export async function ladderPlan(ctx: BacktestContext, i: BacktestInputs["ladder-plan"], asOf: number) {
  const { token, series } = await tokenSeries(ctx, i.token, asOf - 37 * DAY, asOf, "1h");
  return { ...ladderPlanAnswer(token, series, asOf, i.amountUsd, i.feeBps), note: NOTE };
}
