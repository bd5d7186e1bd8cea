// The dip ladder: 5 buys 10% apart below the price at the start, each selling at +50% after fees and
// repeating (each part is a repeating grid of the ladder strategy, by the fill rules of
// fill-rules.ts). Its record: 500 USD (or the amount asked) started at every UTC midnight of the last
// 30 days, each held a week (or until now for the latest starts). Pure: no I/O.
import { createGridRun } from "./grid.js";
import { seriesBetween, type PriceSeries } from "./series.js";
import { DAY_S } from "../price.js";

const DAY = DAY_S;
export const DIP_LADDER = { parts: 5, stepPct: 10, profitPct: 50, recordDays: 30, holdDays: 7, defaultAmountUsd: 500 } as const;

export type DipLine = { buyPrice: number; sellPrice: number; amountUsd: number };

/** The parts from `price`: buy k at price x 0.9^k, sell where the round trip nets +50% after both fees. */
export function dipLadderLines(price: number, amountUsd: number, feeBps: number): DipLine[] {
  const keep = 1 - feeBps / 10_000;
  const out: DipLine[] = [];
  for (let k = 1; k <= DIP_LADDER.parts; k++) {
    const buyPrice = price * (1 - DIP_LADDER.stepPct / 100) ** k;
    out.push({ buyPrice, sellPrice: (buyPrice * (1 + DIP_LADDER.profitPct / 100)) / (keep * keep), amountUsd: amountUsd / DIP_LADDER.parts });
  }
  return out;
}

export type DipRun = {
  start: number;
  end: number;
  complete: boolean;
  startPrice: number;
  buys: number;
  sells: number;
  endValueUsd: number;
  profitUsd: number;
  returnPct: number;
  holdReturnPct: number;
};

/** One run of the ladder from `start` to `end` over `s`. */
export function runDipLadder(s: PriceSeries, start: number, end: number, amountUsd: number, feeBps: number): DipRun | null {
  const w = seriesBetween(s, start, end);
  if (w.length === 0) return null;
  const startPrice = w.open[0]!;
  let buys = 0;
  let sells = 0;
  let value = 0;
  for (const line of dipLadderLines(startPrice, amountUsd, feeBps)) {
    const run = createGridRun({ buyPrice: line.buyPrice, sellPrice: line.sellPrice, amountUsd: line.amountUsd, repeat: true, feeBps });
    run.feed(w);
    const r = run.result();
    buys += r.buys;
    sells += r.sells;
    value += r.endValueUsd;
  }
  return {
    start,
    end,
    complete: false,
    startPrice,
    buys,
    sells,
    endValueUsd: value,
    profitUsd: value - amountUsd,
    returnPct: (value / amountUsd - 1) * 100,
    holdReturnPct: (w.close[w.length - 1]! / startPrice - 1) * 100,
  };
}

export type DipRecord = {
  starts: number;
  completeStarts: number;
  positiveStarts: number;
  startsWithFill: number;
  averageReturnPct: number | null;
  worstReturnPct: number | null;
  bestReturnPct: number | null;
  averageHoldReturnPct: number | null;
  runs: DipRun[];
};

/** The record: one run per UTC midnight of the last 30 days that has prices, each held a week. */
export function dipLadderRecord(s: PriceSeries, now: number, amountUsd: number, feeBps: number): DipRecord {
  const runs: DipRun[] = [];
  const firstMidnight = Math.ceil((now - DIP_LADDER.recordDays * DAY) / DAY) * DAY;
  for (let m = firstMidnight; m < now; m += DAY) {
    if (s.length === 0 || s.start[0]! > m) continue; // no price at that midnight yet
    const end = Math.min(now, m + DIP_LADDER.holdDays * DAY);
    const r = runDipLadder(s, m, end, amountUsd, feeBps);
    if (!r) continue;
    r.complete = m + DIP_LADDER.holdDays * DAY <= now;
    runs.push(r);
  }
  const returns = runs.map((r) => r.returnPct);
  const avg = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
  return {
    starts: runs.length,
    completeStarts: runs.filter((r) => r.complete).length,
    positiveStarts: runs.filter((r) => r.profitUsd > 0).length,
    startsWithFill: runs.filter((r) => r.buys > 0).length,
    averageReturnPct: avg(returns),
    worstReturnPct: returns.length ? Math.min(...returns) : null,
    bestReturnPct: returns.length ? Math.max(...returns) : null,
    averageHoldReturnPct: avg(runs.map((r) => r.holdReturnPct)),
    runs,
  };
}

export type DipPlan = {
  verdict: "good" | "weak" | "none";
  reasons: string[];
  warnings: string[];
  record: DipRecord;
  today: DipLine[];
  lastClose: number | null;
};

export function planDipLadder(s: PriceSeries, now: number, amountUsd: number, feeBps: number): DipPlan {
  const record = dipLadderRecord(s, now, amountUsd, feeBps);
  const lastClose = s.length ? s.close[s.length - 1]! : null;
  const today = lastClose === null ? [] : dipLadderLines(lastClose, amountUsd, feeBps);
  const reasons: string[] = [];
  const warnings: string[] = [
    "Each part sells only after a 50% rebound from its buy line: buys can stay held for a long time, at a loss, when the price keeps falling.",
  ];
  if (record.completeStarts < DIP_LADDER.recordDays - DIP_LADDER.holdDays) {
    warnings.push(`Only ${record.completeStarts} starts held a full week (${record.starts} starts in all): the record is short`);
  }
  if (record.starts > 0 && record.startsWithFill === 0) warnings.push("No start bought anything: the price never fell 10% within a week of a start");
  let verdict: DipPlan["verdict"] = "none";
  if (record.starts === 0) {
    reasons.push("No price at any midnight of the last 30 days");
  } else {
    const avg = record.averageReturnPct!;
    reasons.push(
      `${record.positiveStarts} of ${record.starts} starts ended above the amount; average ${avg.toFixed(2)}%, worst ${record.worstReturnPct!.toFixed(2)}%`,
    );
    if (record.startsWithFill === 0) reasons.push("It never traded in the record");
    else if (avg > 0 && record.positiveStarts * 2 >= record.starts) verdict = "good";
    else if (record.positiveStarts > 0) verdict = "weak";
    else reasons.push("No start ended above the amount");
  }
  return { verdict, reasons, warnings, record, today, lastClose };
}
