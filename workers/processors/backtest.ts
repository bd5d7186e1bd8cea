// The `backtest` queue's processor: grid and ladder backtests, ranges, the grid and ladder planners
// and the strategy finder's on-demand runs (usecases/backtest-runs/run.ts). A failure (workers/job-failure.ts)
// fails the job at once, without a retry, with the {code, message, details} the API answers.
import type { Job } from "bullmq";
import type { BacktestJobData } from "../../usecases/backtest-runs/jobs.js";
import type { BacktestContext } from "../../usecases/backtest-runs/answers.js";
import { runBacktest } from "../../usecases/backtest-runs/run.js";
import { jobFailure, type JobFailureContext } from "../job-failure.js";

export function backtestProcessor(ctx: BacktestContext & JobFailureContext) {
  return async (job: Job<BacktestJobData>): Promise<unknown> => {
    try {
      return await runBacktest(ctx, job.data);
    } catch (error) {
      throw jobFailure(error, ctx, { queue: "backtest", kind: job.data.kind });
    }
  };
}
