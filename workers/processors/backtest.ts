// The `backtest` queue's processor: grid and ladder backtests, ranges, the grid and ladder planners
// and the strategy finder's on-demand runs (src/backtests/run.ts). An ApiError (NO_CANDLES...) fails
// the job at once, without a retry, with its {code, message, details}, which the API turns back into
// the same answer.
import { UnrecoverableError, type Job } from "bullmq";
import { isConnectionError } from "../../api/errors.js";
import type { BacktestJobData } from "../../src/backtests/jobs.js";
import { runBacktest, type BacktestContext } from "../../src/backtests/run.js";
import { ApiError } from "../../src/domain/errors.js";
import type { Logger } from "../../src/logger.js";
import { encodeApiError } from "../../src/prepare/wire.js";

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
