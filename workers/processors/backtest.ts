// The `backtest` queue's processor: grid and ladder backtests, ranges, the grid and ladder planners
// and the strategy finder's on-demand runs (usecases/backtest-runs/run.ts). An ApiError (NO_CANDLES...) fails
// the job at once, without a retry, with its {code, message, details}, which the API turns back into
// the same answer.
import { UnrecoverableError, type Job } from "bullmq";
import { isConnectionError } from "../../adapters/failures.js";
import type { BacktestJobData } from "../../usecases/backtest-runs/jobs.js";
import type { BacktestContext } from "../../usecases/backtest-runs/answers.js";
import { runBacktest } from "../../usecases/backtest-runs/run.js";
import { ApiError } from "../../domain/errors.js";
import type { Logger } from "../../adapters/logger.js";
import { encodeApiError } from "../../usecases/prepare/queued-errors.js";

export function backtestProcessor(ctx: BacktestContext & { logger: Logger }) {
  return async (job: Job<BacktestJobData>): Promise<unknown> => {
    try {
      return await runBacktest(ctx, job.data);
    } catch (error) {
      if (error instanceof ApiError) throw new UnrecoverableError(encodeApiError(error));
      if (isConnectionError(error)) {
        ctx.logger.warn({ kind: job.data.kind, err: (error as Error).message }, "backtest: a dependency is unavailable");
        throw new UnrecoverableError(encodeApiError(new ApiError("UNAVAILABLE")));
      }
      ctx.logger.error({ kind: job.data.kind, err: error }, "backtest failed");
      throw new UnrecoverableError(encodeApiError(new ApiError("INTERNAL")));
    }
  };
}
