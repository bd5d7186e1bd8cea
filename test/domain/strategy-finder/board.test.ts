// The strategy finder's ranking (at most 2 per token, 6 per style; widening; shorter windows) and
// its per-window results.
import { describe, expect, it } from "vitest";
import { toSeries, type SimCandle } from "../../../domain/backtest/series.js";
import { rankBoard, tokenPeriodResults, vaultPeriodResults, type BoardEntry, type PeriodResult } from "../../../domain/strategy-finder/board.js";

const DAY = 86_400;
const NOW = 1_750_003_200;
const result = (style: PeriodResult["style"], returnPct: number, periodDays = 7): PeriodResult => ({
  style,
  periodDays,
  from: NOW - periodDays * DAY,
  to: NOW,
  returnPct,
  holdReturnPct: 0,
  trades: 1,
});
const entry = (key: string, category: string, r: PeriodResult): BoardEntry<null> => ({ key, category, result: r, subject: null });

describe("ranking", () => {
  it("keeps at most 2 per token and 6 per style, best first", () => {
    const all: BoardEntry<null>[] = [];
    for (let t = 0; t < 10; t++)
      for (const style of ["grid", "dip-ladder"] as const)
        for (const bump of [0, 0.5]) all.push(entry(`t${t}`, "crypto", result(style, t + bump + (style === "grid" ? 0.25 : 0))));
    const ranked = rankBoard(all, { periodDays: 7 }).entries;
    const perKey = new Map<string, number>();
    const perStyle = new Map<string, number>();
    for (const e of ranked) {
      perKey.set(e.key, (perKey.get(e.key) ?? 0) + 1);
      perStyle.set(e.result.style, (perStyle.get(e.result.style) ?? 0) + 1);
    }
    expect(Math.max(...perKey.values())).toBe(2);
    expect([...perStyle.values()]).toEqual([6, 6]);
    expect(ranked.map((e) => e.result.returnPct)).toEqual([...ranked.map((e) => e.result.returnPct)].sort((a, b) => b - a));
    expect(ranked[0]!.key).toBe("t9");
  });

  it("widens a slice with nothing positive, and falls back to the longest shorter window", () => {
    const all = [entry("a", "meme", result("grid", -2, 3)), entry("b", "crypto", result("grid", 4, 3)), entry("b", "crypto", result("grid", 1, 2))];
    const meme = rankBoard(all, { periodDays: 7, category: "meme" });
    expect(meme.periodDays).toBe(3);
    expect(meme.shorterWindow).toContain("showing 3d");
    expect(meme.widened).toContain("category meme");
    expect(meme.entries.map((e) => e.key)).toEqual(["b", "a"]);
    const crypto = rankBoard(all, { periodDays: 2, category: "crypto" });
    expect([crypto.widened, crypto.shorterWindow, crypto.entries.length]).toEqual([null, null, 1]);
  });
});

describe("window results", () => {
  it("covers only the windows the prices cover, and picks grid lines on the window before", () => {
    const candles: SimCandle[] = [];
    for (let t = NOW - 10 * DAY, i = 0; t < NOW; t += 3600, i++)
      candles.push(i % 2 ? { start: t, open: 108, high: 110, low: 106, close: 108 } : { start: t, open: 102, high: 104, low: 100, close: 102 });
    const results = tokenPeriodResults(toSeries(candles), NOW, { gridFeeBps: 30, ladderFeeBps: 30 });
    expect(Math.max(...results.map((r) => r.periodDays))).toBe(10);
    // A grid needs prices before its window (its lines are picked there): the 10-day window has none.
    expect(Math.max(...results.filter((r) => r.style === "grid").map((r) => r.periodDays))).toBe(9);
    const grid = results.find((r) => r.style === "grid" && r.periodDays === 5)!;
    expect([grid.buyPrice, grid.sellPrice].map((x) => Math.round(x!))).toEqual([100, 110]);
    expect(grid.returnPct).toBeGreaterThan(0);
  });

  it("values a vault deposit from the share price at the window start", () => {
    const prices = [
      { timestamp: NOW - 3 * DAY, sharePrice: 1 },
      { timestamp: NOW - DAY, sharePrice: 1.01 },
      { timestamp: NOW, sharePrice: 1.02 },
    ];
    const r = vaultPeriodResults(prices, NOW, () => 5);
    expect(r.map((x) => x.periodDays)).toEqual([1, 2, 3]);
    expect(r[0]!.returnPct).toBeCloseTo((1.02 / 1.01 - 1) * 100, 9);
    expect(r[2]!.returnPct).toBeCloseTo(2, 9);
  });
});
