// Grid planner: a walk-forward over hourly prices. Lines are picked on one window of past prices and
// tested on the next (never on the prices they were picked from); today's lines are picked on the
// latest window. The verdict is good, weak or none, with reasons. Pure: no I/O.
import { backtestGrid } from "./grid.js";
import { allowedGaps, bestLinesForGap, breakEvenGap, findRanges, type RangeLine } from "./ranges.js";
import { seriesBetween, type PriceSeries } from "./series.js";
import { DAY_S } from "../price.js";

const DAY = DAY_S;
/** Buy lines tried per gap in the planner (hourly windows are short). */
const PLAN_LEVELS = 32;

export type GridPlanParams = {
  amountUsd: number;
  feeBps: number;
  /** Lines this far apart (sell / buy - 1) instead of the planner's pick. */
  gap?: number;
  /** Now (unix seconds): the end of the history. */
  now: number;
  days: number;
};

export type GridLines = { buyPrice: number; sellPrice: number; gap: number; amountUsdg: number };

export type PlanWindow = {
  from: number;
  to: number;
  buyPrice: number;
  sellPrice: number;
  gap: number;
  roundTrips: number;
  profitUsd: number;
  returnPct: number;
  holdReturnPct: number;
};

export type GridVerdict = "good" | "weak" | "none";

export type GridPlan = {
  verdict: GridVerdict;
  reasons: string[];
  feeBps: number;
  minGap: number;
  windowDays: number;
  today: GridLines | null;
  tighter: GridLines | null;
  wider: GridLines | null;
  lastClose: number | null;
  windows: PlanWindow[];
  averageReturnPct: number | null;
  worstReturnPct: number | null;
  positiveWindows: number;
};

/** Walk-forward windows: 7 days with 14 days of history or more; shorter (whole days) on less. */
export function planWindowDays(historySeconds: number): number {
  const days = Math.floor(historySeconds / DAY);
  if (days >= 14) return 7;
  return Math.max(0, Math.floor(days / 2));
}

/** The planner's pick on `s`: best profit over the allowed gaps (or `gap` alone). */
export function pickLines(s: PriceSeries, amountUsd: number, feeBps: number, gap?: number): RangeLine | null {
  if (gap !== undefined) return bestLinesForGap(s, gap, amountUsd, feeBps, PLAN_LEVELS).byProfit;
  return findRanges(s, { amountUsd, feeBps, levels: PLAN_LEVELS }).bestByProfit;
}

const lines = (buyPrice: number, gap: number, amountUsd: number): GridLines => ({ buyPrice, sellPrice: buyPrice * (1 + gap), gap, amountUsdg: amountUsd });

/** The same centre with another gap: sqrt(buy * sell) stays. */
function recentre(l: GridLines, gap: number): GridLines {
  const centre = Math.sqrt(l.buyPrice * l.sellPrice);
  const buy = centre / Math.sqrt(1 + gap);
  return lines(buy, gap, l.amountUsdg);
}

export function planGrid(hourly: PriceSeries, p: GridPlanParams): GridPlan {
  const from = p.now - p.days * DAY;
  const s = seriesBetween(hourly, from, p.now + 1);
  const minGap = breakEvenGap(p.feeBps);
  const plan: GridPlan = {
    verdict: "none",
    reasons: [],
    feeBps: p.feeBps,
    minGap,
    windowDays: 0,
    today: null,
    tighter: null,
    wider: null,
    lastClose: s.length ? s.close[s.length - 1]! : null,
    windows: [],
    averageReturnPct: null,
    worstReturnPct: null,
    positiveWindows: 0,
  };
  if (s.length < 2) {
    plan.reasons.push("Not enough hourly prices to plan");
    return plan;
  }
  const first = s.start[0]!;
  const history = p.now - first;
  const w = planWindowDays(history);
  plan.windowDays = w;
  if (w === 0) {
    plan.reasons.push("Less than 2 days of prices: no walk-forward is possible");
  } else {
    if (w < 7) plan.reasons.push(`Only ${Math.floor(history / DAY)} days of prices: windows of ${w} days instead of weeks`);
    const span = w * DAY;
    // Align windows to end at now: the last test window is the latest complete one.
    const count = Math.floor(history / span);
    const start0 = p.now - count * span;
    for (let k = 1; k < count; k++) {
      const trainFrom = start0 + (k - 1) * span;
      const testFrom = trainFrom + span;
      const pick = pickLines(seriesBetween(s, trainFrom, testFrom), p.amountUsd, p.feeBps, p.gap);
      if (!pick) continue;
      const test = seriesBetween(s, testFrom, testFrom + span);
      if (test.length === 0) continue;
      const r = backtestGrid(test, { buyPrice: pick.buyPrice, sellPrice: pick.sellPrice, amountUsd: p.amountUsd, repeat: true, feeBps: p.feeBps });
      plan.windows.push({
        from: testFrom,
        to: testFrom + span,
        buyPrice: pick.buyPrice,
        sellPrice: pick.sellPrice,
        gap: pick.gap,
        roundTrips: r.roundTrips,
        profitUsd: r.profitUsd,
        returnPct: r.returnPct,
        holdReturnPct: (test.close[test.length - 1]! / test.open[0]! - 1) * 100,
      });
    }
    const latest = pickLines(seriesBetween(s, p.now - span, p.now + 1), p.amountUsd, p.feeBps, p.gap);
    if (latest) {
      plan.today = lines(latest.buyPrice, latest.gap, p.amountUsd);
      const gaps = allowedGaps(p.feeBps);
      const tighterGap = [...gaps].reverse().find((g) => g < latest.gap - 1e-12) ?? (latest.gap / 2 > minGap ? latest.gap / 2 : undefined);
      const widerGap = gaps.find((g) => g > latest.gap + 1e-12) ?? Math.min(0.5, latest.gap * 2);
      plan.tighter = tighterGap !== undefined ? recentre(plan.today, tighterGap) : null;
      plan.wider = widerGap > latest.gap ? recentre(plan.today, widerGap) : null;
    } else {
      plan.reasons.push("No pair of lines made a round trip after fees in the latest window");
    }
  }
  const n = plan.windows.length;
  if (n > 0) {
    const returns = plan.windows.map((x) => x.returnPct);
    plan.averageReturnPct = returns.reduce((a, b) => a + b, 0) / n;
    plan.worstReturnPct = Math.min(...returns);
    plan.positiveWindows = returns.filter((r) => r > 0).length;
  }
  plan.verdict = verdictOf(plan);
  return plan;
}

function verdictOf(plan: GridPlan): GridVerdict {
  const n = plan.windows.length;
  const r = plan.reasons;
  if (!plan.today) return "none";
  if (n === 0) {
    r.push("No tested window yet: the lines were never tried on prices they were not picked from");
    return "none";
  }
  const avg = plan.averageReturnPct!;
  const worst = plan.worstReturnPct!;
  const pos = plan.positiveWindows;
  r.push(`Average window ${avg.toFixed(2)}%, worst ${worst.toFixed(2)}%, ${pos} of ${n} windows positive after fees`);
  if (plan.lastClose !== null && (plan.lastClose < plan.today.buyPrice || plan.lastClose > plan.today.sellPrice)) {
    r.push("The price now is outside today's lines: the grid waits until the price comes back");
  }
  if (avg > 0 && pos * 2 >= n && worst > -10 && n >= 2) return "good";
  if (n < 2) r.push("Fewer than 2 tested windows");
  if (avg <= 0) r.push("The average window lost money after fees");
  if (worst <= -10) r.push("A window lost 10% or more");
  if (pos > 0 || avg > 0) return "weak";
  return "none";
}
