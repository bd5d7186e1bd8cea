// Candle series for the backtest tests: hand-made ones and fast-check arbitraries.
import fc from "fast-check";
import type { SimCandle } from "../../../domain/backtest/series.js";

/** A candle every 600 s from t0 with these [low, high] ranges (open = low, close = high unless given). */
export function candlesOf(ranges: [number, number, number?][], t0 = 1_700_000_000, step = 600): SimCandle[] {
  return ranges.map(([low, high, close], i) => ({ start: t0 + i * step, open: low, high, low, close: close ?? high }));
}

/** Random walks of positive candles. */
export const arbCandles = (min = 1, max = 200) =>
  fc
    .record({
      start: fc.double({ min: 1, max: 1000, noNaN: true }),
      moves: fc.array(
        fc.tuple(
          fc.double({ min: -0.08, max: 0.08, noNaN: true }),
          fc.double({ min: 0, max: 0.05, noNaN: true }),
          fc.double({ min: 0, max: 0.05, noNaN: true }),
        ),
        { minLength: min, maxLength: max },
      ),
    })
    .map(({ start, moves }) => {
      const out: SimCandle[] = [];
      let price = start;
      moves.forEach(([move, up, down], i) => {
        const open = price;
        const close = price * (1 + move);
        const high = Math.max(open, close) * (1 + up);
        const low = Math.min(open, close) * (1 - down);
        out.push({ start: 1_700_000_000 + i * 600, open, high, low, close });
        price = close;
      });
      return out;
    });
