// Backtest speed: the pure simulation core (domain/backtest/, domain/strategy-finder/) over
// seeded synthetic candles, as the jobs run it (candle loading from Postgres is not timed here).
//   grid backtest   one run over 90 days of 10-minute candles (12,960)          target < 2 ms per run
//   ranges          every allowed gap x 48 buy lines over the same 90 days       target < 100 ms
//   grid scan       the grid planner (60 days hourly, walk-forward) x 200 tokens target < 5 s
//   finder board    the strategy-finder board's work over the devnet's tokens (devnet/tokens.ts:
//                   their start prices and volatilities, 60 days hourly): periods 1-30 per style,
//                   the grid walk-forward and the dip-ladder record per token
// Run alone: `npx tsx bench/backtests.ts`; bench/run.ts can call `benchBacktests()`.
import { dipLadderRecord } from "../domain/backtest/dip-ladder.js";
import { backtestGrid } from "../domain/backtest/grid.js";
import { planGrid } from "../domain/backtest/grid-plan.js";
import { findRanges } from "../domain/backtest/ranges.js";
import { toSeries, type PriceSeries, type SimCandle } from "../domain/backtest/series.js";
import { tokenPeriodResults } from "../domain/strategy-finder/board.js";
import { devnetTokens } from "../devnet/tokens.js";
import { isMain, printMachine, printResult, round, type BenchResult } from "./lib.js";

const _DAY = 86_400;
const NOW = 1_750_003_200; // a UTC midnight

/** A seeded random walk: `count` candles of `step` seconds ending at NOW. */
function walk(seed: number, count: number, step: number, start: number, volatility: number): PriceSeries {
  let s = seed >>> 0 || 1;
  const rnd = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const out: SimCandle[] = [];
  let price = start;
  for (let i = 0; i < count; i++) {
    const open = price;
    price = Math.max(open * 0.5, open * (1 + (rnd() - 0.5) * 2 * volatility));
    out.push({
      start: NOW - (count - i) * step,
      open,
      high: Math.max(open, price) * (1 + (rnd() * volatility) / 2),
      low: Math.min(open, price) * (1 - (rnd() * volatility) / 2),
      close: price,
    });
  }
  return toSeries(out);
}

function time<T>(run: () => T): { ms: number; value: T } {
  const t = performance.now();
  const value = run();
  return { ms: performance.now() - t, value };
}

export async function benchBacktests(): Promise<BenchResult> {
  const ten = walk(7, 90 * 144, 600, 100, 0.004);
  // Lines around the series' middle price, so that the grids really trade.
  const last = ten.close[ten.length >> 1]!;
  // Warm up the JIT, then time many runs with lines around the last price.
  for (let k = 0; k < 50; k++) backtestGrid(ten, { buyPrice: last * 0.98, sellPrice: last * 1.02, amountUsd: 200, repeat: true, feeBps: 30 });
  const runs = 500;
  let trips = 0;
  const grid = time(() => {
    for (let k = 0; k < runs; k++)
      trips += backtestGrid(ten, {
        buyPrice: last * (0.99 + k * 0.00001),
        sellPrice: last * 1.01,
        amountUsd: 200,
        repeat: true,
        feeBps: 30,
        recordTrades: true,
      }).roundTrips;
  });
  findRanges(ten, { amountUsd: 200, feeBps: 30 });
  const rangeRuns = 10;
  const ranges = time(() => {
    for (let k = 0; k < rangeRuns; k++) findRanges(ten, { amountUsd: 200, feeBps: 30 });
  });

  const tokens = Array.from({ length: 200 }, (_, i) => walk(1000 + i, 60 * 24, 3600, 1 + i, 0.003 + (i % 10) * 0.002));
  const scan = time(() => tokens.map((s) => planGrid(s, { amountUsd: 200, feeBps: 30, now: NOW, days: 60 }).verdict));
  const verdicts = scan.value.reduce<Record<string, number>>((a, v) => ({ ...a, [v]: (a[v] ?? 0) + 1 }), {});

  const devnet = devnetTokens.map((t, i) => walk(77 + i, 60 * 24, 3600, t.startPrice, t.volatility));
  const board = time(() =>
    devnet.map((s) => {
      planGrid(s, { amountUsd: 500, feeBps: 30, now: NOW, days: 60 });
      dipLadderRecord(s, NOW, 500, 30);
      return tokenPeriodResults(s, NOW, { gridFeeBps: 30, ladderFeeBps: 30 }).length;
    }),
  );

  const perRun = grid.ms / runs;
  const perRanges = ranges.ms / rangeRuns;
  return {
    name: "backtests",
    figures: [
      { name: "grid backtest, 90 days of 10-minute candles (12,960)", value: round(perRun), unit: "ms/run", target: "< 2 ms", pass: perRun < 2 },
      { name: "ranges, 90 days of 10-minute candles", value: round(perRanges), unit: "ms", target: "< 100 ms", pass: perRanges < 100 },
      {
        name: "grid scan, 200 synthetic tokens (60 days hourly, walk-forward)",
        value: round(scan.ms / 1000),
        unit: "s",
        target: "< 5 s",
        pass: scan.ms < 5000,
      },
      { name: `strategy-finder board, the devnet's ${devnet.length} tokens (60 days hourly)`, value: round(board.ms), unit: "ms" },
    ],
    notes: [
      `grid: ${runs} runs, ${trips} round trips in all; scan verdicts ${JSON.stringify(verdicts)}; board results ${board.value.reduce((a, b) => a + b, 0)}`,
      "CPU only: the jobs also load candles from Postgres (one indexed range read per token)",
    ],
  };
}

if (isMain(import.meta.url)) {
  printMachine();
  printResult(await benchBacktests());
}
