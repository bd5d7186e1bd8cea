// The `prepare` queue's processor: the same pipeline as the API's in-process path. An ApiError (a
// refusal) fails the job at once, without a retry, with its {code, message, details} as the failure
// reason, which the API turns back into the same answer.
import { UnrecoverableError, type Job } from "bullmq";
import { isConnectionError } from "../../adapters/failures.js";
import { ApiError } from "../../domain/errors.js";
import type { PrepareJobData } from "../../usecases/prepare/job.js";
import { runPrepare } from "../../usecases/prepare/pipeline.js";
import { prepareKinds } from "../../contract/prepare-kinds.js";
import type { PrepareContext, PrepareResult } from "../../usecases/prepare/types.js";
import { encodeApiError } from "../../usecases/prepare/queued-errors.js";

export function prepareProcessor(ctx: PrepareContext) {
  return async (job: Job<PrepareJobData>): Promise<PrepareResult> => {
    const { kind, body, filer } = job.data;
    try {
      if (!prepareKinds.includes(kind)) throw new ApiError("NOT_FOUND", `prepare kind ${String(kind)} is not served`);
      return await runPrepare(ctx, kind, body as never, filer);
    } catch (error) {
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
