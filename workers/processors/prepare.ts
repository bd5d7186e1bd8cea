// The `prepare` queue's processor: the same pipeline as the API's in-process path. A failure
// (workers/job-failure.ts) fails the job at once, without a retry, with the {code, message, details}
// the API answers. A job whose caller has gone is dropped, stored nowhere.
import { UnrecoverableError, type Job } from "bullmq";
import { ApiError } from "../../domain/errors.js";
import { isPastDeadline, type PrepareJobData } from "../../usecases/prepare/job.js";
import { prepareContext, runPrepare } from "../../usecases/prepare/pipeline.js";
import { CallerGoneError } from "../../adapters/queue/request-reply.js";
import { prepareKinds } from "../../contract/prepare-kinds.js";
import type { PrepareResult, PrepareSetup } from "../../usecases/prepare/types.js";
import type { ChainGuard } from "../../adapters/chain/chain-guard.js";
import { WRONG_CHAIN } from "../../domain/chain.js";
import { jobFailure } from "../job-failure.js";

/** `isGone(jobId)`: the caller marked the job gone (it disconnected or timed out while the job ran). */
export function prepareProcessor(
  setup: PrepareSetup & { viewsSchema: string },
  isGone?: (jobId: string) => Promise<boolean>,
  chain?: Pick<ChainGuard, "servesPrepares">,
) {
  const ctx = prepareContext(setup);
  return async (job: Job<PrepareJobData>): Promise<PrepareResult> => {
    const { kind, body, filer } = job.data;
    // A job whose caller has gone is dropped: before it starts, and again before it stores anything.
    const callerGone = async () => isPastDeadline(job.data) || (job.id !== undefined && isGone !== undefined && (await isGone(job.id)));
    try {
      if (await callerGone()) throw new CallerGoneError("the caller gave up before the job started");
      if (chain && !(await chain.servesPrepares())) throw new ApiError("UNAVAILABLE", WRONG_CHAIN);
      if (!prepareKinds.includes(kind)) throw new ApiError("NOT_FOUND", `prepare kind ${String(kind)} is not served`);
      return await runPrepare({ ...ctx, callerGone }, kind, body as never, filer);
    } catch (error) {
      if (error instanceof CallerGoneError) {
        ctx.logger.debug({ kind, jobId: job.id }, "prepare dropped: its caller has gone");
        throw new UnrecoverableError(`caller-gone: ${error.message}`);
      }
      throw jobFailure(error, ctx, { queue: "prepare", kind });
    }
  };
}
