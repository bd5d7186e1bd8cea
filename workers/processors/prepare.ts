// The `prepare` queue's processor: the same pipeline as the API's in-process path. An ApiError (a
// refusal) fails the job at once, without a retry, with its {code, message, details} as the failure
// reason, which the API turns back into the same answer.
import { UnrecoverableError, type Job } from "bullmq";
import { isConnectionError } from "../../adapters/failures.js";
import { ApiError } from "../../domain/errors.js";
import { isPastDeadline, type PrepareJobData } from "../../usecases/prepare/job.js";
import { CallerGoneError, runPrepare } from "../../usecases/prepare/pipeline.js";
import { prepareKinds } from "../../contract/prepare-kinds.js";
import type { PrepareContext, PrepareResult } from "../../usecases/prepare/types.js";
import { encodeApiError } from "../../usecases/prepare/queued-errors.js";
import type { ChainGuard } from "../../adapters/chain/chain-guard.js";
import { WRONG_CHAIN } from "../../domain/chain.js";

/** `isGone(jobId)`: the caller marked the job gone (it disconnected or timed out while the job ran). */
export function prepareProcessor(ctx: PrepareContext, isGone?: (jobId: string) => Promise<boolean>, chain?: Pick<ChainGuard, "servesPrepares">) {
  return async (job: Job<PrepareJobData>): Promise<PrepareResult> => {
    const { kind, body } = job.data;
    // A job whose caller has gone is dropped: before it starts, and again before it stores anything.
    const callerGone = async () => isPastDeadline(job.data) || (job.id !== undefined && isGone !== undefined && (await isGone(job.id)));
    try {
      if (await callerGone()) throw new CallerGoneError("the caller gave up before the job started");
      if (chain && !(await chain.servesPrepares())) throw new ApiError("UNAVAILABLE", WRONG_CHAIN);
      if (!prepareKinds.includes(kind)) throw new ApiError("NOT_FOUND", `prepare kind ${String(kind)} is not served`);
      return await runPrepare({ ...ctx, callerGone }, kind, body as never);
    } catch (error) {
      if (error instanceof CallerGoneError) {
        ctx.logger.debug({ kind, jobId: job.id }, "prepare dropped: its caller has gone");
        throw new UnrecoverableError(`caller-gone: ${error.message}`);
      }
      if (error instanceof ApiError) throw new UnrecoverableError(encodeApiError(error));
      if (isConnectionError(error)) {
        ctx.logger.warn({ kind, err: (error as Error).message }, "prepare: a dependency is unavailable");
        throw new UnrecoverableError(encodeApiError(new ApiError("UNAVAILABLE")));
      }
      ctx.logger.error({ kind, err: error }, "prepare failed");
      throw new UnrecoverableError(encodeApiError(new ApiError("INTERNAL")));
    }
  };
}
