// How a request-reply job fails: a refusal (ApiError) keeps its {code, message, details}; a dependency
// that cannot serve (Postgres, Redis, the RPC) and an index that is not ready (its views missing, as
// during a restart or a reindex) are 503 UNAVAILABLE, which the API answers with Retry-After; anything
// else is a logged 500 INTERNAL. Never retried: the caller is waiting for this answer.
import { UnrecoverableError } from "bullmq";
import { isConnectionError, isMissingView } from "../adapters/failures.js";
import type { Logger } from "../adapters/logger.js";
import { ApiError } from "../domain/errors.js";
import { encodeApiError } from "../usecases/prepare/queued-errors.js";

export type JobFailureContext = { logger: Logger; viewsSchema: string };

export function jobFailure(error: unknown, ctx: JobFailureContext, job: Record<string, unknown>): UnrecoverableError {
  if (error instanceof ApiError) return new UnrecoverableError(encodeApiError(error));
  if (isMissingView(error, ctx.viewsSchema)) {
    ctx.logger.warn({ ...job, err: (error as Error).message }, "the index's views are missing (restart or reindex)");
    return new UnrecoverableError(encodeApiError(new ApiError("UNAVAILABLE", "The index is not ready (its views are being made): retry shortly")));
  }
  if (isConnectionError(error)) {
    ctx.logger.warn({ ...job, err: (error as Error).message }, "a dependency is unavailable");
    return new UnrecoverableError(encodeApiError(new ApiError("UNAVAILABLE")));
  }
  ctx.logger.error({ ...job, err: error }, "job failed");
  return new UnrecoverableError(encodeApiError(new ApiError("INTERNAL")));
}
