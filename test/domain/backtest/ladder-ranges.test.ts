// Ladder backtest and ranges: hand-computed answers and properties.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { backtestLadder } from "../../../domain/backtest/ladder.js";
import { allowedGaps, breakEvenGap, findRanges } from "../../../domain/backtest/ranges.js";
import { seriesRange, toSeries } from "../../../domain/backtest/series.js";
import { arbCandles, candlesOf } from "./candles.js";

describe("ladder backtest", () => {
  it("fills a level once, at its price, with the hook's commission on the output", () => {
    // The 95 level is reached twice (candles 2 and 4): it fills once, at candle 2. 90 is never reached.
    const candles = candlesOf([
      [98, 101],
      [94, 99],
      [97, 100],
      [93, 96],
      [96, 98, 97],
    ]);
    const r = backtestLadder(toSeries(candles), {
      side: "buy",
      levels: [
        { price: 95, amountUsd: 190 },
        { price: 90, amountUsd: 100 },
      ],
      feeBps: 20,
    });
    expect(r.filledLevels).toBe(1);
    const [l95, l90] = r.levels;
    expect(l95!.filledAt).toBe(candles[1]!.start);
    expect(l95!.amountOut).toBeCloseTo(2 * (1 - 0.002), 12); // 190 / 95 = 2 tokens, less 0.2%
    expect(l95!.commissionUsd).toBeCloseTo(0.38, 12);
    expect(l90!.filled).toBe(false);
    // End: 1.996 tokens at the last close 97, plus the unfilled 100 USDG.
    expect(r.endValueUsd).toBeCloseTo(1.996 * 97 + 100, 9);
    expect(r.profitUsd).toBeCloseTo(1.996 * 97 + 100 - 290, 9);
  });

  it("sell levels fill on highs at or above them", () => {
    const r = backtestLadder(
      toSeries(
        candlesOf([
          [99, 101],
          [100, 111, 108],
        ]),
      ),
      {
        side: "sell",
        levels: [
          { price: 110, amountUsd: 110 },
          { price: 120, amountUsd: 120 },
        ],
        feeBps: 0,
      },
    );
    expect(r.levels.map((l) => l.filled)).toEqual([true, false]);
    expect(r.levels[0]!.amountOut).toBeCloseTo(110, 12);
  });

  it("a level the price never reaches never fills", () => {
    fc.assert(
      fc.property(arbCandles(), fc.double({ min: 0.1, max: 0.99, noNaN: true }), fc.integer({ min: 0, max: 1000 }), (candles, below, fee) => {
        const s = toSeries(candles);
        const { low, high } = seriesRange(s);
        const buy = backtestLadder(s, { side: "buy", levels: [{ price: low * below, amountUsd: 50 }], feeBps: fee });
        const sell = backtestLadder(s, { side: "sell", levels: [{ price: high / below, amountUsd: 50 }], feeBps: fee });
        expect(buy.filledLevels + sell.filledLevels).toBe(0);
        expect(buy.profitUsd).toBe(0);
      }),
    );
  });
});

describe("ranges", () => {
  it("finds the best gap of an oscillation between 100 and 110", () => {
    const candles = candlesOf(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? [100, 104] : [106, 110]) as [number, number]));
    const r = findRanges(toSeries(candles), { amountUsd: 100, feeBps: 30 });
    // Every gap up to 10% trips 10 times (one fill per candle); 10% earns the most per trip; wider gaps never sell.
    expect(r.bestByProfit!.gap).toBe(0.1);
    expect(r.bestByProfit!.buyPrice).toBeCloseTo(100, 9);
    expect(r.bestByProfit!.sellPrice).toBeCloseTo(110, 9);
    expect(r.bestByProfit!.roundTrips).toBe(10);
    expect(r.gaps.find((g) => g.gap === 0.125)!.byProfit).toBeNull();
    expect(r.bestByRoundTrips!.roundTrips).toBe(10);
    // Gaps the 0.3% fee does not allow are not tried.
    expect(r.gaps.some((g) => g.gap === 0.005)).toBe(false);
  });

  it("tries only gaps above the fee's break-even", () => {
    expect(breakEvenGap(0)).toBe(0);
    expect(breakEvenGap(30)).toBeCloseTo(1 / 0.997 ** 2 - 1, 15);
    expect(allowedGaps(30)[0]).toBe(0.01);
    expect(allowedGaps(0)[0]).toBe(0.005);
    expect(allowedGaps(1000)[0]).toBe(0.25);
  });

  it("never reports more profit than its round trips can earn", () => {
    fc.assert(
      fc.property(arbCandles(2, 150), fc.integer({ min: 0, max: 300 }), (candles, fee) => {
        const r = findRanges(toSeries(candles), { amountUsd: 100, feeBps: fee, levels: 12 });
        for (const g of r.gaps) {
          for (const line of [g.byProfit, g.byRoundTrips]) {
            if (!line) continue;
            expect(line.buyPrice).toBeGreaterThanOrEqual(r.low * (1 - 1e-12));
            expect(line.sellPrice).toBeLessThanOrEqual(r.high * (1 + 1e-12));
            expect(line.profitUsd).toBeLessThanOrEqual(line.roundTrips * 100 * g.gap + 100 * (r.high / line.buyPrice - 1) + 1e-6);
          }
        }
      }),
    );
  });
});
