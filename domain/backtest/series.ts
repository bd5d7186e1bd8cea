// Price series of the simulations: candles as parallel typed arrays (fast loops, no allocation per
// candle). Prices are USDG per whole token as floating-point numbers: backtests are estimates, not
// quotes. Pure: no I/O.

export type SimCandle = { start: number; open: number; high: number; low: number; close: number };

export type PriceSeries = {
  /** Bucket starts, unix seconds, oldest first. */
  start: Float64Array;
  open: Float64Array;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
  length: number;
};

export function toSeries(candles: readonly SimCandle[]): PriceSeries {
  const n = candles.length;
  const s: PriceSeries = {
    start: new Float64Array(n),
    open: new Float64Array(n),
    high: new Float64Array(n),
    low: new Float64Array(n),
    close: new Float64Array(n),
    length: n,
  };
  for (let i = 0; i < n; i++) {
    const c = candles[i]!;
    s.start[i] = c.start;
    s.open[i] = c.open;
    s.high[i] = c.high;
    s.low[i] = c.low;
    s.close[i] = c.close;
  }
  return s;
}

/** Candles [from, to) by index; shares memory with `s`. */
export function sliceSeries(s: PriceSeries, from: number, to: number): PriceSeries {
  const a = Math.max(0, from);
  const b = Math.max(a, Math.min(s.length, to));
  return {
    start: s.start.subarray(a, b),
    open: s.open.subarray(a, b),
    high: s.high.subarray(a, b),
    low: s.low.subarray(a, b),
    close: s.close.subarray(a, b),
    length: b - a,
  };
}

/** Index of the first candle starting at or after `t` (s.length when none). */
export function indexAt(s: PriceSeries, t: number): number {
  let lo = 0;
  let hi = s.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (s.start[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Candles of `s` with start in [from, to). */
export function seriesBetween(s: PriceSeries, from: number, to: number): PriceSeries {
  return sliceSeries(s, indexAt(s, from), indexAt(s, to));
}

/** Lowest low and highest high of a series (NaN when empty). */
export function seriesRange(s: PriceSeries): { low: number; high: number } {
  let low = Infinity;
  let high = -Infinity;
  for (let i = 0; i < s.length; i++) {
    if (s.low[i]! < low) low = s.low[i]!;
    if (s.high[i]! > high) high = s.high[i]!;
  }
  return s.length ? { low, high } : { low: NaN, high: NaN };
}
