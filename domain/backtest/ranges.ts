// Ranges: the grid lines that would have made the most round trips or profit over past candles. For
// every gap the fee allows, buy lines spread over the candles' price range are each replayed as a
// repeating grid (fill-rules.ts); the best per gap and the best overall are kept. Pure: no I/O.
import { gridTrips } from "./grid.js";
import { seriesRange, type PriceSeries } from "./series.js";

/** The gaps (sell / buy - 1) the searches try. */
export const GRID_GAPS = [0.005, 0.01, 0.015, 0.02, 0.025, 0.03, 0.04, 0.05, 0.06, 0.08, 0.1, 0.125, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5] as const;

/** Buy lines tried per gap. */
export const RANGE_LEVELS = 48;

/** The smallest gap whose round trip pays both fees back (a gap must be above it). */
export function breakEvenGap(feeBps: number): number {
  const keep = 1 - feeBps / 10_000;
  return 1 / (keep * keep) - 1;
}

/** The gaps of GRID_GAPS the fee allows (a round trip at the gap makes money after fees). */
export function allowedGaps(feeBps: number): number[] {
  const min = breakEvenGap(feeBps);
  return GRID_GAPS.filter((g) => g > min + 1e-12);
}

export type RangeLine = { buyPrice: number; sellPrice: number; gap: number; roundTrips: number; profitUsd: number; returnPct: number };

export type RangesResult = {
  gaps: { gap: number; byRoundTrips: RangeLine | null; byProfit: RangeLine | null }[];
  bestByRoundTrips: RangeLine | null;
  bestByProfit: RangeLine | null;
  low: number;
  high: number;
  candles: number;
};

/** Buy lines for `gap`: `levels` log-spaced from the lowest low to the highest high / (1 + gap). */
export function buyLines(low: number, high: number, gap: number, levels = RANGE_LEVELS): number[] {
  let top = high / (1 + gap);
  if (top < low && top >= low * (1 - 1e-9)) top = low; // float rounding: the gap just fits
  if (!(top >= low) || !(low > 0)) return [];
  if (levels <= 1 || top === low) return [low];
  const ratio = (top / low) ** (1 / (levels - 1));
  const out: number[] = [];
  for (let k = 0; k < levels; k++) out.push(k === levels - 1 ? top : low * ratio ** k);
  return out;
}

const better = (a: RangeLine, b: RangeLine | null, key: "roundTrips" | "profitUsd") => {
  if (!b) return true;
  const other = key === "roundTrips" ? "profitUsd" : "roundTrips";
  return a[key] > b[key] || (a[key] === b[key] && a[other] > b[other]);
};

/** Best lines of one gap over `s`. */
export function bestLinesForGap(s: PriceSeries, gap: number, amountUsd: number, feeBps: number, levels = RANGE_LEVELS, range = seriesRange(s)) {
  let byRoundTrips: RangeLine | null = null;
  let byProfit: RangeLine | null = null;
  for (const buyPrice of buyLines(range.low, range.high, gap, levels)) {
    const sellPrice = buyPrice * (1 + gap);
    const r = gridTrips(s, buyPrice, sellPrice, amountUsd, feeBps);
    const line: RangeLine = { buyPrice, sellPrice, gap, roundTrips: r.roundTrips, profitUsd: r.profitUsd, returnPct: (r.profitUsd / amountUsd) * 100 };
    if (line.roundTrips > 0 && better(line, byRoundTrips, "roundTrips")) byRoundTrips = line;
    if (line.roundTrips > 0 && better(line, byProfit, "profitUsd")) byProfit = line;
  }
  return { byRoundTrips, byProfit };
}

export function findRanges(
  s: PriceSeries,
  { amountUsd, feeBps, levels = RANGE_LEVELS, gaps = allowedGaps(feeBps) }: { amountUsd: number; feeBps: number; levels?: number; gaps?: readonly number[] },
): RangesResult {
  const range = seriesRange(s);
  const out: RangesResult = { gaps: [], bestByRoundTrips: null, bestByProfit: null, low: range.low, high: range.high, candles: s.length };
  for (const gap of gaps) {
    const best = bestLinesForGap(s, gap, amountUsd, feeBps, levels, range);
    out.gaps.push({ gap, ...best });
    if (best.byRoundTrips && better(best.byRoundTrips, out.bestByRoundTrips, "roundTrips")) out.bestByRoundTrips = best.byRoundTrips;
    if (best.byProfit && better(best.byProfit, out.bestByProfit, "profitUsd")) out.bestByProfit = best.byProfit;
  }
  return out;
}
