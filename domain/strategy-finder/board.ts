// The strategy finder's board: for each style (grid, dip ladder, vault) and token or vault, past
// results over windows of 1-30 days, set beside holding the token. Grid lines are picked walk-forward
// (on the window before the one they are tested on); the dip ladder starts at the window's start; a
// vault is a deposit at the window start valued now after its fees. Ranking keeps at most 2 results
// per token and 6 per style, and widens a slice with nothing positive. Pure: no I/O.
import { runDipLadder } from "../backtest/dip-ladder.js";
import { backtestGrid } from "../backtest/grid.js";
import { pickLines } from "../backtest/grid-plan.js";
import { seriesBetween, type PriceSeries } from "../backtest/series.js";
import { DAY_S } from "../price.js";

const DAY = DAY_S;
export const FINDER_STYLES = ["grid", "dip-ladder", "vault"] as const;
export type FinderStyle = (typeof FINDER_STYLES)[number];
export const MAX_PER_TOKEN = 2;
export const MAX_PER_STYLE = 6;
export const MAX_PERIOD_DAYS = 30;
/** Budget the stored percentages were computed with (answers scale them to the asked budget). */
export const BOARD_BUDGET_USD = 500;

export type PeriodResult = {
  style: FinderStyle;
  periodDays: number;
  from: number;
  to: number;
  returnPct: number;
  holdReturnPct: number;
  trades: number;
  /** Grid: the lines; dip ladder: the start price; vault: none. */
  buyPrice?: number;
  sellPrice?: number;
  startPrice?: number;
};

/** Grid and dip-ladder results of one token for every window of 1-30 days that its prices cover. */
export function tokenPeriodResults(
  hourly: PriceSeries,
  now: number,
  fees: { gridFeeBps: number; ladderFeeBps: number },
  periods = MAX_PERIOD_DAYS,
): PeriodResult[] {
  const out: PeriodResult[] = [];
  if (hourly.length < 2) return out;
  const first = hourly.start[0]!;
  for (let n = 1; n <= periods; n++) {
    const start = now - n * DAY;
    if (first > start) break; // the window is not covered (nor any longer one)
    const window = seriesBetween(hourly, start, now + 1);
    if (window.length === 0) continue;
    const hold = (window.close[window.length - 1]! / window.open[0]! - 1) * 100;
    const train = seriesBetween(hourly, start - n * DAY, start);
    const lines = train.length >= 2 ? pickLines(train, BOARD_BUDGET_USD, fees.gridFeeBps) : null;
    if (lines) {
      const r = backtestGrid(window, {
        buyPrice: lines.buyPrice,
        sellPrice: lines.sellPrice,
        amountUsd: BOARD_BUDGET_USD,
        repeat: true,
        feeBps: fees.gridFeeBps,
      });
      out.push({
        style: "grid",
        periodDays: n,
        from: start,
        to: now,
        returnPct: r.returnPct,
        holdReturnPct: hold,
        trades: r.trades,
        buyPrice: lines.buyPrice,
        sellPrice: lines.sellPrice,
      });
    }
    const dip = runDipLadder(hourly, start, now + 1, BOARD_BUDGET_USD, fees.ladderFeeBps);
    if (dip)
      out.push({
        style: "dip-ladder",
        periodDays: n,
        from: start,
        to: now,
        returnPct: dip.returnPct,
        holdReturnPct: hold,
        trades: dip.buys + dip.sells,
        startPrice: dip.startPrice,
      });
  }
  return out;
}

/** A vault's results: a deposit at each window start (the last share price at or before it) valued now. */
export function vaultPeriodResults(
  sharePrices: { timestamp: number; sharePrice: number }[],
  now: number,
  holdOf: (from: number) => number | null,
  periods = MAX_PERIOD_DAYS,
): PeriodResult[] {
  const out: PeriodResult[] = [];
  if (sharePrices.length < 2) return out;
  const last = sharePrices[sharePrices.length - 1]!.sharePrice;
  for (let n = 1; n <= periods; n++) {
    const start = now - n * DAY;
    let at: number | undefined;
    for (const p of sharePrices) if (p.timestamp <= start) at = p.sharePrice;
    if (at === undefined || at <= 0) break;
    out.push({ style: "vault", periodDays: n, from: start, to: now, returnPct: (last / at - 1) * 100, holdReturnPct: holdOf(start) ?? 0, trades: 0 });
  }
  return out;
}

export type BoardEntry<T> = { key: string; category: string; result: PeriodResult; subject: T };

export type RankOptions = { periodDays: number; style?: FinderStyle; key?: string; category?: string };

export type Ranked<T> = { periodDays: number; widened: string | null; shorterWindow: string | null; entries: BoardEntry<T>[] };

/** Best first by return, at most 2 per token (key) and 6 per style. */
export function rankEntries<T>(entries: BoardEntry<T>[]): BoardEntry<T>[] {
  const sorted = [...entries].sort((a, b) => b.result.returnPct - a.result.returnPct);
  const perKey = new Map<string, number>();
  const perStyle = new Map<string, number>();
  const out: BoardEntry<T>[] = [];
  for (const e of sorted) {
    const k = perKey.get(e.key) ?? 0;
    const s = perStyle.get(e.result.style) ?? 0;
    if (k >= MAX_PER_TOKEN || s >= MAX_PER_STYLE) continue;
    perKey.set(e.key, k + 1);
    perStyle.set(e.result.style, s + 1);
    out.push(e);
  }
  return out;
}

/**
 * The board for a window: the asked period, or the longest shorter one with results; the slice
 * (token, category, style); widened to every token and category when the slice has nothing positive.
 */
export function rankBoard<T>(all: BoardEntry<T>[], o: RankOptions): Ranked<T> {
  let periodDays = o.periodDays;
  let shorterWindow: string | null = null;
  const has = (n: number) => all.some((e) => e.result.periodDays === n);
  while (periodDays > 1 && !has(periodDays)) periodDays--;
  if (periodDays !== o.periodDays)
    shorterWindow = has(periodDays) ? `Nothing has ${o.periodDays} days of history yet: showing ${periodDays}d, the longest shorter window with results` : null;
  const inPeriod = all.filter((e) => e.result.periodDays === periodDays && (!o.style || e.result.style === o.style));
  const slice = inPeriod.filter((e) => (!o.key || e.key === o.key) && (!o.category || e.category === o.category));
  const positive = (xs: BoardEntry<T>[]) => xs.some((e) => e.result.returnPct > 0);
  if ((o.key || o.category) && !positive(slice) && positive(inPeriod)) {
    const what = [o.key && "this token", o.category && `category ${o.category}`].filter(Boolean).join(" and ");
    return {
      periodDays,
      shorterWindow,
      widened: `Nothing positive for ${what} over ${periodDays}d: widened to every token and category`,
      entries: rankEntries(inPeriod),
    };
  }
  return { periodDays, shorterWindow, widened: null, entries: rankEntries(slice) };
}
