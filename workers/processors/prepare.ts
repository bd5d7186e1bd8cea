// The `prepare` queue's processor: the same pipeline as the API's in-process path. A failure
// (workers/job-failure.ts) fails the job at once, without a retry, with the {code, message, details}
// the API answers.
import type { Job } from "bullmq";
import { ApiError } from "../../domain/errors.js";
import type { PrepareJobData } from "../../usecases/prepare/job.js";
import { runPrepare } from "../../usecases/prepare/pipeline.js";
import { prepareKinds } from "../../contract/prepare-kinds.js";
import type { PrepareContext, PrepareResult } from "../../usecases/prepare/types.js";
import { jobFailure } from "../job-failure.js";

export function prepareProcessor(ctx: PrepareContext & { viewsSchema: string }) {
  return async (job: Job<PrepareJobData>): Promise<PrepareResult> => {
    const { kind, body, filer } = job.data;
    try {
      if (!prepareKinds.includes(kind)) throw new ApiError("NOT_FOUND", `prepare kind ${String(kind)} is not served`);
      return await runPrepare(ctx, kind, body as never, filer);
    } catch (error) {
      throw jobFailure(error, ctx, { queue: "prepare", kind });
    }
  };
}
