// The strategy finder's on-demand backtest (walk-forward or fixed) and the log of those runs, bounded per client.
import type { Kysely } from "kysely";
import type { Database } from "../../adapters/db/api-schema.js";
import { countRunsSince, insertFinderRun } from "../../adapters/db/finder-runs.js";
import { dipLadderLines, dipLadderRecord } from "../../domain/backtest/dip-ladder.js";
import { iso, pct, priceString, usd } from "../../domain/backtest/format.js";
import { backtestGrid } from "../../domain/backtest/grid.js";
import { planGrid } from "../../domain/backtest/grid-plan.js";
import { ApiError } from "../../domain/errors.js";
import type { ChartedToken } from "../../adapters/db/reads/candles.js";
import type { FinderBacktestInput } from "./jobs.js";
import { dipPrepareBody, NOTE, tokenRef, tokenSeries, type BacktestContext } from "./answers.js";
import { DAY_MS, DAY_S } from "../../domain/price.js";
import { FINDER_RUNS_PER_CLIENT_PER_DAY } from "../../contract/strategy-finder.js";

const DAY = DAY_S;

// ---------------------------------------------------------------- on-demand backtests

/** POST /v1/strategy-finder/backtest: walk-forward (variant) or fixed settings over a period. */
export async function finderBacktest(ctx: BacktestContext, i: FinderBacktestInput, asOf: number) {
  const fixed = i.periodDays !== undefined || i.settings !== undefined;
  return fixed ? fixedBacktest(ctx, i, asOf) : walkForwardBacktest(ctx, i, asOf);
}

/** The head of a walk-forward answer: what was run, over how many days. */
const walkForwardHead = (i: FinderBacktestInput, token: ChartedToken, days: number) => ({
  mode: "walk-forward" as const,
  token: tokenRef(token),
  strategy: i.strategy,
  variant: i.variant ?? "standard",
  budgetUsd: i.budgetUsd,
  days,
  feeBps: i.feeBps,
});

/** The head of a fixed-settings answer: what was run, over which period. */
const fixedHead = (i: FinderBacktestInput, token: ChartedToken, periodDays: number, from: number, asOf: number) => ({
  mode: "fixed" as const,
  token: tokenRef(token),
  strategy: i.strategy,
  budgetUsd: i.budgetUsd,
  period: `${periodDays}d`,
  feeBps: i.feeBps,
  from: iso(from),
  to: iso(asOf),
});

/** Walk-forward: the settings the planner would pick, tried from every start of the window. */
async function walkForwardBacktest(ctx: BacktestContext, i: FinderBacktestInput, asOf: number) {
  const days = i.days ?? 30;
  const { token, series } = await tokenSeries(ctx, i.token, asOf - days * DAY, asOf, "1h");
  if (i.strategy === "grid") {
    const plan = planGrid(series, { amountUsd: i.budgetUsd, feeBps: i.feeBps, now: asOf, days });
    const pick = i.variant === "tighter" ? plan.tighter : i.variant === "wider" ? plan.wider : plan.today;
    return {
      ...walkForwardHead(i, token, days),
      verdict: plan.verdict,
      reasons: plan.reasons,
      starts: plan.windows.map((w) => ({
        start: iso(w.from),
        end: iso(w.to),
        returnPct: pct(w.returnPct),
        pnlUsd: usd(w.profitUsd),
        holdReturnPct: pct(w.holdReturnPct),
        trades: w.roundTrips * 2,
      })),
      averageReturnPct: plan.averageReturnPct === null ? null : pct(plan.averageReturnPct),
      worstReturnPct: plan.worstReturnPct === null ? null : pct(plan.worstReturnPct),
      run: pick
        ? {
            route: "/v1/agent/prepare/grid",
            body: {
              action: "open",
              token: tokenRef(token).address,
              buyPrice: priceString(pick.buyPrice),
              sellPrice: priceString(pick.sellPrice),
              amountUsdg: usd(i.budgetUsd).toFixed(2),
              repeat: true,
            } as Record<string, unknown>,
          }
        : null,
      note: NOTE,
    };
  }
  const rec = dipLadderRecord(series, asOf, i.budgetUsd, i.feeBps);
  const last = series.close[series.length - 1]!;
  return {
    ...walkForwardHead(i, token, days),
    verdict: rec.starts === 0 ? ("none" as const) : rec.averageReturnPct! > 0 ? ("good" as const) : ("weak" as const),
    reasons: [`${rec.positiveStarts} of ${rec.starts} starts ended above the budget`],
    starts: rec.runs.map((r) => ({
      start: iso(r.start),
      end: iso(r.end),
      returnPct: pct(r.returnPct),
      pnlUsd: usd(r.profitUsd),
      holdReturnPct: pct(r.holdReturnPct),
      trades: r.buys + r.sells,
    })),
    averageReturnPct: rec.averageReturnPct === null ? null : pct(rec.averageReturnPct),
    worstReturnPct: rec.worstReturnPct === null ? null : pct(rec.worstReturnPct),
    run: {
      route: "/v1/agent/prepare/ladder-strategy",
      body: dipPrepareBody(token.address, dipLadderLines(last, i.budgetUsd, i.feeBps)) as Record<string, unknown>,
    },
    note: NOTE,
  };
}

/** Fixed settings over one period ending now. */
async function fixedBacktest(ctx: BacktestContext, i: FinderBacktestInput, asOf: number) {
  const periodDays = i.periodDays ?? 7;
  const { token, series } = await tokenSeries(ctx, i.token, asOf - periodDays * DAY, asOf, "1h");
  const hold = (series.close[series.length - 1]! / series.open[0]! - 1) * 100;
  if (i.strategy === "grid") {
    const buy = i.settings?.buyPrice;
    const sell = i.settings?.sellPrice;
    if (buy === undefined || sell === undefined || !(sell > buy))
      throw new ApiError("INVALID_REQUEST", "settings: a grid needs buyPrice and sellPrice, sellPrice above buyPrice");
    const r = backtestGrid(series, { buyPrice: buy, sellPrice: sell, amountUsd: i.budgetUsd, repeat: true, feeBps: i.feeBps });
    return {
      ...fixedHead(i, token, periodDays, series.start[0]!, asOf),
      returnPct: pct(r.returnPct),
      pnlUsd: usd(r.profitUsd),
      holdReturnPct: pct(hold),
      holdPnlUsd: usd((i.budgetUsd * hold) / 100),
      trades: r.trades,
      roundTrips: r.roundTrips,
      feesUsd: usd(r.feesUsd),
      note: NOTE,
    };
  }
  const startPrice = i.settings?.startPrice ?? series.open[0]!;
  let value = 0;
  let trades = 0;
  let roundTrips = 0;
  let fees = 0;
  for (const l of dipLadderLines(startPrice, i.budgetUsd, i.feeBps)) {
    const r = backtestGrid(series, { buyPrice: l.buyPrice, sellPrice: l.sellPrice, amountUsd: l.amountUsd, repeat: true, feeBps: i.feeBps });
    value += r.endValueUsd;
    trades += r.trades;
    roundTrips += r.roundTrips;
    fees += r.feesUsd;
  }
  return {
    ...fixedHead(i, token, periodDays, series.start[0]!, asOf),
    returnPct: pct((value / i.budgetUsd - 1) * 100),
    pnlUsd: usd(value - i.budgetUsd),
    holdReturnPct: pct(hold),
    holdPnlUsd: usd((i.budgetUsd * hold) / 100),
    trades,
    roundTrips,
    feesUsd: usd(fees),
    note: NOTE,
  };
}

/**
 * Every on-demand run is logged; with an identity only when it was made with that wallet's signed-in
 * owner session (the route passes the session's owner, never a wallet the body names).
 */
export async function logFinderRun(
  db: Kysely<Database>,
  input: FinderBacktestInput,
  identity: { kind: "wallet"; value: string } | undefined,
  summary: Record<string, unknown>,
  now: Date,
  client: string | null = null,
) {
  await insertFinderRun(db, {
    client,
    identity_kind: identity?.kind ?? null,
    identity_value: identity ? identity.value.toLowerCase() : null,
    token: input.token.toLowerCase(),
    strategy: input.strategy,
    input: input as unknown as Record<string, unknown>,
    summary,
    created_at: now,
  });
}

/** The client's runs of the day before `now`, counted up to the bound, and when the oldest of them leaves the day. */
export async function recentRunsOf(db: Kysely<Database>, client: string, now: Date): Promise<{ count: number; firstLeaves: Date | null }> {
  const row = await countRunsSince(db, client, new Date(now.getTime() - DAY_MS), FINDER_RUNS_PER_CLIENT_PER_DAY);
  return { count: Number(row.n), firstLeaves: row.first ? new Date(new Date(row.first as Date).getTime() + DAY_MS) : null };
}

/** GET /v1/strategy-finder/attempts: runs made with this wallet's owner session. */
export type { ChartedToken };
