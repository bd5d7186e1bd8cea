// Grid planner (walk-forward) and dip ladder: known answers on hand-made hourly prices.
import { describe, expect, it } from "vitest";
import { dipLadderLines, dipLadderRecord, planDipLadder, runDipLadder } from "../../../domain/backtest/dip-ladder.js";
import { planGrid, planWindowDays } from "../../../domain/backtest/grid-plan.js";
import { toSeries, type SimCandle } from "../../../domain/backtest/series.js";

const HOUR = 3600;
const DAY = 86_400;
const NOW = 1_750_000_000 - (1_750_000_000 % DAY); // a midnight

/** Hourly candles over `days` before NOW, alternating between [100, 104] and [106, 110]. */
function oscillation(days: number): SimCandle[] {
  const out: SimCandle[] = [];
  for (let t = NOW - days * DAY, i = 0; t < NOW; t += HOUR, i++) {
    out.push(i % 2 === 0 ? { start: t, open: 102, high: 104, low: 100, close: 102 } : { start: t, open: 108, high: 110, low: 106, close: 108 });
  }
  return out;
}

describe("grid planner", () => {
  it("walks forward week by week and finds a good grid in a steady oscillation", () => {
    const plan = planGrid(toSeries(oscillation(60)), { amountUsd: 200, feeBps: 30, now: NOW, days: 60 });
    expect(plan.windowDays).toBe(7);
    expect(plan.windows.length).toBe(7); // 8 whole weeks in 60 days: the first only trains
    for (const w of plan.windows) {
      expect(w.to - w.from).toBe(7 * DAY);
      expect(w.roundTrips).toBeGreaterThan(0);
    }
    expect(plan.verdict).toBe("good");
    expect(plan.today!.gap).toBe(0.1);
    expect(plan.today!.buyPrice).toBeCloseTo(100, 6);
    expect(plan.tighter!.gap).toBe(0.08);
    expect(plan.wider!.gap).toBe(0.125);
    expect(plan.averageReturnPct).toBeGreaterThan(0);
    expect(plan.worstReturnPct).toBeLessThanOrEqual(plan.averageReturnPct! + 1e-9);
  });

  it("uses the gap asked for", () => {
    const plan = planGrid(toSeries(oscillation(30)), { amountUsd: 200, feeBps: 30, now: NOW, days: 30, gap: 0.05 });
    expect(plan.today!.gap).toBe(0.05);
    expect(plan.windows.every((w) => w.gap === 0.05)).toBe(true);
  });

  it("says none on a flat price, and shortens windows on short history", () => {
    const flat = oscillation(20).map((c) => ({ ...c, open: 100, high: 100, low: 100, close: 100 }));
    const plan = planGrid(toSeries(flat), { amountUsd: 200, feeBps: 30, now: NOW, days: 60 });
    expect(plan.verdict).toBe("none");
    expect(plan.today).toBeNull();
    expect(planWindowDays(3 * DAY)).toBe(1);
    expect(planWindowDays(1 * DAY)).toBe(0);
    const short = planGrid(toSeries(oscillation(4)), { amountUsd: 200, feeBps: 30, now: NOW, days: 60 });
    expect(short.windowDays).toBe(2);
    expect(short.windows.length).toBe(1);
  });
});

describe("dip ladder", () => {
  it("places 5 buys 10% apart, each selling at +50% after both fees", () => {
    const lines = dipLadderLines(100, 500, 30);
    expect(lines.map((l) => l.buyPrice)).toEqual([90, 81, 72.9, 65.61, 59.049].map((x) => expect.closeTo(x, 9)));
    for (const l of lines) {
      // 100 USDG in, fee on both sides: the sell nets 150.
      const tokens = (l.amountUsd * 0.997) / l.buyPrice;
      expect(tokens * l.sellPrice * 0.997).toBeCloseTo(l.amountUsd * 1.5, 9);
    }
  });

  it("one part buys on a 10% dip and sells on the rebound", () => {
    const t0 = NOW - 3 * DAY;
    const candles: SimCandle[] = [
      { start: t0, open: 100, high: 100, low: 100, close: 100 },
      { start: t0 + HOUR, open: 100, high: 100, low: 89, close: 90 }, // part 1 buys at 90
      { start: t0 + 2 * HOUR, open: 90, high: 140, low: 90, close: 140 }, // 90 * 1.5 / 0.997^2 = 135.81: sells
      { start: t0 + 3 * HOUR, open: 140, high: 140, low: 140, close: 140 },
    ];
    const r = runDipLadder(toSeries(candles), t0, NOW, 500, 30)!;
    expect([r.buys, r.sells]).toEqual([1, 1]);
    expect(r.profitUsd).toBeCloseTo(50, 9); // +50% on the 100 USDG part, the other four untouched
  });

  it("keeps a record of every midnight of the last 30 days, each held a week", () => {
    const s = toSeries(oscillation(40).map((c, i) => ({ ...c, low: i % 97 === 0 ? c.low * 0.85 : c.low })));
    const rec = dipLadderRecord(s, NOW, 500, 30);
    expect(rec.starts).toBe(30);
    expect(rec.completeStarts).toBe(24);
    expect(rec.runs.every((r) => r.end - r.start <= 7 * DAY)).toBe(true);
    const plan = planDipLadder(s, NOW, 500, 30);
    expect(plan.today).toHaveLength(5);
    expect(plan.record.starts).toBe(30);
  });
});
