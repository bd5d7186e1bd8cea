// Grid backtest: a repeating buy line and sell line replayed over candles by the fill rules
// (fill-rules.ts). A run can be fed page by page (`createGridRun`): the result does not depend on how
// the candles are paged. Pure: no I/O.
import { LINE_EPSILON } from "./fill-rules.js";
import type { PriceSeries } from "./series.js";

export type GridParams = {
  buyPrice: number;
  sellPrice: number;
  /** USDG the grid starts with; the most a buy spends. */
  amountUsd: number;
  repeat: boolean;
  /** Strategy fee in basis points of each trade's USDG side. */
  feeBps: number;
  /** Keep each trade (answers); scans and ranges skip them for speed. */
  recordTrades?: boolean;
};

export type GridTrade = { time: number; side: "buy" | "sell"; price: number; usdg: number; tokens: number; feeUsd: number };

export type GridResult = {
  trades: number;
  buys: number;
  sells: number;
  roundTrips: number;
  feesUsd: number;
  /** Sum of the round trips' profits. */
  realisedProfitUsd: number;
  usdg: number;
  tokens: number;
  holdsToken: boolean;
  /** False once a grid without repeat has sold. */
  active: boolean;
  lastClose: number | null;
  endValueUsd: number;
  profitUsd: number;
  returnPct: number;
  tradeList: GridTrade[];
};

export type GridRun = { feed(s: PriceSeries): void; result(): GridResult };

export function createGridRun(p: GridParams): GridRun {
  const f = p.feeBps / 10_000;
  const buyAt = p.buyPrice * (1 + LINE_EPSILON);
  const sellAt = p.sellPrice * (1 - LINE_EPSILON);
  let usdg = p.amountUsd;
  let tokens = 0;
  let cost = 0;
  let holds = false;
  let active = true;
  let buys = 0;
  let sells = 0;
  let fees = 0;
  let realised = 0;
  let lastClose: number | null = null;
  const list: GridTrade[] = [];

  return {
    feed(s) {
      const { low, high, close, start } = s;
      const n = s.length;
      for (let i = 0; i < n && active; i++) {
        if (!holds) {
          if (low[i]! <= buyAt) {
            const spend = usdg < p.amountUsd ? usdg : p.amountUsd;
            const fee = spend * f;
            tokens = (spend - fee) / p.buyPrice;
            usdg -= spend;
            cost = spend;
            fees += fee;
            holds = true;
            buys++;
            if (p.recordTrades) list.push({ time: start[i]!, side: "buy", price: p.buyPrice, usdg: spend, tokens, feeUsd: fee });
          }
        } else if (high[i]! >= sellAt) {
          const gross = tokens * p.sellPrice;
          const fee = gross * f;
          usdg += gross - fee;
          realised += gross - fee - cost;
          fees += fee;
          if (p.recordTrades) list.push({ time: start[i]!, side: "sell", price: p.sellPrice, usdg: gross - fee, tokens, feeUsd: fee });
          tokens = 0;
          cost = 0;
          holds = false;
          sells++;
          if (!p.repeat) active = false;
        }
      }
      if (n > 0) lastClose = close[n - 1]!;
    },
    result() {
      const endValueUsd = usdg + (lastClose === null ? 0 : tokens * lastClose);
      const profitUsd = endValueUsd - p.amountUsd;
      return {
        trades: buys + sells,
        buys,
        sells,
        roundTrips: sells,
        feesUsd: fees,
        realisedProfitUsd: realised,
        usdg,
        tokens,
        holdsToken: holds,
        active,
        lastClose,
        endValueUsd,
        profitUsd,
        returnPct: p.amountUsd > 0 ? (profitUsd / p.amountUsd) * 100 : 0,
        tradeList: list,
      };
    },
  };
}

/** Replays a grid over `s` (all candles at once). */
export function backtestGrid(s: PriceSeries, p: GridParams): GridResult {
  const run = createGridRun(p);
  run.feed(s);
  return run.result();
}

/**
 * Round trips and profit only, for searches (ranges, planners, scans): the same rules as
 * `createGridRun` with repeat, in one tight loop.
 */
export function gridTrips(s: PriceSeries, buyPrice: number, sellPrice: number, amountUsd: number, feeBps: number): { roundTrips: number; profitUsd: number } {
  const f = feeBps / 10_000;
  const buyAt = buyPrice * (1 + LINE_EPSILON);
  const sellAt = sellPrice * (1 - LINE_EPSILON);
  const { low, high } = s;
  const n = s.length;
  let usdg = amountUsd;
  let tokens = 0;
  let holds = false;
  let trips = 0;
  for (let i = 0; i < n; i++) {
    if (!holds) {
      if (low[i]! <= buyAt) {
        const spend = usdg < amountUsd ? usdg : amountUsd;
        tokens = (spend * (1 - f)) / buyPrice;
        usdg -= spend;
        holds = true;
      }
    } else if (high[i]! >= sellAt) {
      usdg += tokens * sellPrice * (1 - f);
      tokens = 0;
      holds = false;
      trips++;
    }
  }
  const end = usdg + (n > 0 ? tokens * s.close[n - 1]! : 0);
  return { roundTrips: trips, profitUsd: end - amountUsd };
}
