// POST /v1/strategy-finder/backtest: any token on demand at the live fee, logged for the session's
// owner only (a body's `identity` proves nothing).
import type { z } from "@hono/zod-openapi";
import { FINDER_RUNS_PER_CLIENT_PER_DAY, type FinderBacktestBody } from "../../contract/strategy-finder.js";
import { rateLimitedUntil } from "../../domain/errors.js";
import { logFinderRun, recentRunsOf } from "./finder.js";
import type { FinderBacktestInput } from "./jobs.js";
import { liveState, runKind, type BacktestDeps } from "./requests.js";

/** "7d" → 7. */
export const periodDays = (period: string) => Number(period.slice(0, -1));

/** Runs it and logs it, for `sessionOwner` when the request carried a live owner session. */
export async function runFinderBacktest(deps: BacktestDeps, b: z.infer<typeof FinderBacktestBody>, sessionOwner: string | null) {
  const client = deps.caller?.client ?? null;
  if (client) await checkRunsOfDay(deps, client);
  const state = await liveState(deps);
  const fee = b.strategy === "grid" ? state.gridStrategy : (state.ladderStrategy ?? state.gridStrategy);
  const input: FinderBacktestInput = {
    token: b.token.toLowerCase(),
    strategy: b.strategy,
    variant: b.variant,
    settings: b.settings,
    budgetUsd: b.budgetUsd,
    days: b.days,
    periodDays: b.period ? periodDays(b.period) : undefined,
    feeBps: fee?.feeBps ?? 0,
  };
  const result = await runKind(deps, "finder-backtest", input);
  const summary =
    result.mode === "fixed"
      ? { mode: result.mode, returnPct: result.returnPct ?? null, verdict: null }
      : { mode: result.mode, returnPct: result.averageReturnPct ?? null, verdict: result.verdict ?? null };
  await logFinderRun(deps.db, input, sessionOwner ? { kind: "wallet", value: sessionOwner } : undefined, summary, deps.now(), client);
  return result;
}

/** 429 RATE_LIMITED when the client made its day's share of runs (before the run is queued). */
async function checkRunsOfDay(deps: Pick<BacktestDeps, "db" | "now">, client: string): Promise<void> {
  const now = deps.now();
  const recent = await recentRunsOf(deps.db, client, now);
  if (recent.count < FINDER_RUNS_PER_CLIENT_PER_DAY) return;
  throw rateLimitedUntil(
    now,
    recent.firstLeaves,
    (wait) => `This client made ${FINDER_RUNS_PER_CLIENT_PER_DAY} on-demand runs in the last 24 hours: the next fits in ${wait} s`,
  );
}
