// What a backtest job does, by kind. Runs in a worker of the `backtest` queue, or in the API process
// without one.
import { ApiError } from "../../domain/errors.js";
import { gridBacktest, gridPlan, ladderBacktest, ladderPlan, ranges, type BacktestContext } from "./answers.js";
import { finderBacktest } from "./finder.js";
import type { BacktestJobData, BacktestKind } from "./jobs.js";

/** What each kind answers. */
export type BacktestOutputs = {
  grid: Awaited<ReturnType<typeof gridBacktest>>;
  ladder: Awaited<ReturnType<typeof ladderBacktest>>;
  ranges: Awaited<ReturnType<typeof ranges>>;
  "grid-plan": Awaited<ReturnType<typeof gridPlan>>;
  "ladder-plan": Awaited<ReturnType<typeof ladderPlan>>;
  "finder-backtest": Awaited<ReturnType<typeof finderBacktest>>;
};

/** Runs one backtest job. */
export async function runBacktest(ctx: BacktestContext, data: BacktestJobData): Promise<unknown> {
  const { kind, input, asOf } = data as { kind: BacktestKind; input: never; asOf: number };
  switch (kind) {
    case "grid":
      return gridBacktest(ctx, input, asOf);
    case "ladder":
      return ladderBacktest(ctx, input, asOf);
    case "ranges":
      return ranges(ctx, input, asOf);
    case "grid-plan":
      return gridPlan(ctx, input, asOf);
    case "ladder-plan":
      return ladderPlan(ctx, input, asOf);
    case "finder-backtest":
      return finderBacktest(ctx, input, asOf);
    default:
      throw new ApiError("NOT_FOUND", `backtest kind ${String(kind)} is not served`);
  }
}
