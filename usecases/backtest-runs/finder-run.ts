// POST /v1/strategy-finder/backtest: any token on demand at the live fee, logged for the session's
// owner only (a body's `identity` proves nothing).
import type { z } from "@hono/zod-openapi";
import type { FinderBacktestBody } from "../../contract/strategy-finder.js";
import { logFinderRun } from "./finder.js";
import type { FinderBacktestInput } from "./jobs.js";
import { liveState, runKind, type BacktestDeps } from "./requests.js";

/** "7d" → 7. */
export const periodDays = (period: string) => Number(period.slice(0, -1));

/** Runs it and logs it, for `sessionOwner` when the request carried a live owner session. */
export async function runFinderBacktest(deps: BacktestDeps, b: z.infer<typeof FinderBacktestBody>, sessionOwner: string | null) {
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
  const summary = { mode: result.mode, returnPct: result.returnPct ?? result.averageReturnPct ?? null, verdict: result.verdict ?? null };
  await logFinderRun(deps.db, input, sessionOwner ? { kind: "wallet", value: sessionOwner } : undefined, summary, deps.now());
  return result;
}
