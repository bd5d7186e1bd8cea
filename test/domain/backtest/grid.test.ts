// Grid backtest: hand-computed answers and properties of the fill rules.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { backtestGrid, createGridRun, gridTrips } from "../../../domain/backtest/grid.js";
import { seriesRange, toSeries } from "../../../domain/backtest/series.js";
import { arbCandles, candlesOf } from "./candles.js";

describe("grid backtest, known answers", () => {
  it("makes exactly 3 round trips between 100 and 110 (fee 0.3% on each USDG side)", () => {
    // buy, sell, buy, sell, buy, sell, then a candle in between, then a buy that is still held.
    const candles = candlesOf([
      [104, 106],
      [99, 104],
      [105, 111],
      [98, 103],
      [106, 112],
      [100, 105],
      [105, 110],
      [103, 107],
      [99, 101, 100],
    ]);
    const r = backtestGrid(toSeries(candles), { buyPrice: 100, sellPrice: 110, amountUsd: 1000, repeat: true, feeBps: 30, recordTrades: true });
    expect(r.roundTrips).toBe(3);
    expect(r.buys).toBe(4);
    expect(r.tradeList.map((t) => t.side).join(",")).toBe("buy,sell,buy,sell,buy,sell,buy");
    // One round trip: 1000 USDG, 3 fee -> 9.97 tokens; sold at 110 = 1096.7 gross, 3.2901 fee -> 1093.4099 net.
    const trip = 1096.7 - 3.2901 - 1000;
    expect(r.realisedProfitUsd).toBeCloseTo(3 * trip, 9);
    expect(r.feesUsd).toBeCloseTo(3 * (3 + 3.2901) + 3, 9);
    // The last buy spends 1000 of the 1280.2297 USDG; its 9.97 tokens are marked at the last close, 100.
    expect(r.usdg).toBeCloseTo(3 * trip, 9);
    expect(r.tokens).toBeCloseTo(9.97, 12);
    expect(r.endValueUsd).toBeCloseTo(3 * trip + 997, 9);
    expect(r.profitUsd).toBeCloseTo(3 * trip - 3, 9);
  });

  it("stops after its first sell without repeat", () => {
    const r = backtestGrid(
      toSeries(
        candlesOf([
          [99, 101],
          [109, 111],
          [99, 101],
          [109, 111],
        ]),
      ),
      { buyPrice: 100, sellPrice: 110, amountUsd: 100, repeat: false, feeBps: 0 },
    );
    expect([r.buys, r.sells, r.active]).toEqual([1, 1, false]);
    expect(r.profitUsd).toBeCloseTo(10, 12);
  });

  it("fills at most one line per candle", () => {
    // One candle spans both lines: only the buy fills in it.
    const r = backtestGrid(
      toSeries(
        candlesOf([
          [90, 120],
          [101, 102, 102],
        ]),
      ),
      { buyPrice: 100, sellPrice: 110, amountUsd: 100, repeat: true, feeBps: 0 },
    );
    expect([r.buys, r.sells]).toEqual([1, 0]);
    expect(r.endValueUsd).toBeCloseTo(102, 12);
  });
});

describe("grid backtest, properties", () => {
  const lines = fc.record({
    below: fc.double({ min: 0.5, max: 0.99, noNaN: true }),
    gap: fc.double({ min: 0.001, max: 0.6, noNaN: true }),
    fee: fc.integer({ min: 0, max: 1000 }),
  });

  it("never fills a line the price never reaches", () => {
    fc.assert(
      fc.property(arbCandles(), lines, (candles, { below, gap, fee }) => {
        const s = toSeries(candles);
        const { low } = seriesRange(s);
        const buyPrice = low * below; // under every low
        const r = backtestGrid(s, { buyPrice, sellPrice: buyPrice * (1 + gap), amountUsd: 100, repeat: true, feeBps: fee });
        expect(r.trades).toBe(0);
        expect(r.profitUsd).toBe(0);
      }),
    );
  });

  it("holding the token, never sells when the highs stay under the sell line", () => {
    fc.assert(
      fc.property(arbCandles(2), fc.double({ min: 1.001, max: 3, noNaN: true }), (candles, above) => {
        const s = toSeries(candles);
        const { high } = seriesRange(s);
        const r = backtestGrid(s, { buyPrice: s.open[0]! * 10, sellPrice: high * above * 10, amountUsd: 100, repeat: true, feeBps: 30 });
        expect(r.sells).toBe(0);
      }),
    );
  });

  it("never makes more profit than the candles allow", () => {
    fc.assert(
      fc.property(arbCandles(), fc.double({ min: 0.7, max: 1.2, noNaN: true }), lines, (candles, at, { gap, fee }) => {
        const s = toSeries(candles);
        const buyPrice = s.open[0]! * at;
        const sellPrice = buyPrice * (1 + gap);
        const r = backtestGrid(s, { buyPrice, sellPrice, amountUsd: 100, repeat: true, feeBps: fee, recordTrades: true });
        // Each round trip gains at most the gap on at most 100 USDG; a held token at most what its last close pays.
        const { high } = seriesRange(s);
        const held = r.holdsToken ? 100 * (high / buyPrice - 1) : 0;
        expect(r.profitUsd).toBeLessThanOrEqual(r.roundTrips * 100 * gap + Math.max(0, held) + 1e-6);
        // Every fill is at a line that the filling candle reached.
        for (const t of r.tradeList) {
          const i = candles.findIndex((c) => c.start === t.time);
          if (t.side === "buy") expect(candles[i]!.low).toBeLessThanOrEqual(buyPrice * (1 + 1e-9));
          else expect(candles[i]!.high).toBeGreaterThanOrEqual(sellPrice * (1 - 1e-9));
        }
        // A round trip needs two candles.
        expect(r.trades).toBeLessThanOrEqual(candles.length);
      }),
    );
  });

  it("with zero fees, each round trip's profit is the line gap times the size", () => {
    fc.assert(
      fc.property(arbCandles(2), fc.double({ min: 0.8, max: 1.1, noNaN: true }), fc.double({ min: 0.002, max: 0.3, noNaN: true }), (candles, at, gap) => {
        const s = toSeries(candles);
        const buyPrice = s.open[0]! * at;
        const sellPrice = buyPrice * (1 + gap);
        const r = backtestGrid(s, { buyPrice, sellPrice, amountUsd: 100, repeat: true, feeBps: 0, recordTrades: true });
        for (let k = 0; k + 1 < r.tradeList.length; k += 2) {
          const [buy, sell] = [r.tradeList[k]!, r.tradeList[k + 1]!];
          expect(sell.usdg - buy.usdg).toBeCloseTo((sellPrice - buyPrice) * buy.tokens, 8);
        }
        expect(r.realisedProfitUsd).toBeCloseTo(r.roundTrips * 100 * gap, 8);
      }),
    );
  });

  it("does not depend on how the candles are paged", () => {
    fc.assert(
      fc.property(
        arbCandles(1, 300),
        fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1, maxLength: 20 }),
        lines,
        fc.boolean(),
        (candles, pages, { below, gap, fee }, repeat) => {
          const s = toSeries(candles);
          const params = {
            buyPrice: s.open[0]! * (0.9 + below / 10),
            sellPrice: s.open[0]! * (0.9 + below / 10) * (1 + gap),
            amountUsd: 250,
            repeat,
            feeBps: fee,
            recordTrades: true,
          };
          const whole = backtestGrid(s, params);
          const run = createGridRun(params);
          let at = 0;
          for (let k = 0; at < candles.length; k++) {
            const size = pages[k % pages.length]!;
            run.feed(toSeries(candles.slice(at, at + size)));
            at += size;
          }
          expect(run.result()).toEqual(whole);
          // The search loop follows the same rules.
          if (repeat) {
            const fast = gridTrips(s, params.buyPrice, params.sellPrice, 250, fee);
            expect(fast.roundTrips).toBe(whole.roundTrips);
            expect(fast.profitUsd).toBeCloseTo(whole.profitUsd, 6);
          }
        },
      ),
    );
  });
});
