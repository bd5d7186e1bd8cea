// ApiErrors across the job queue: the worker throws the error's {code, message, details} as JSON (the
// job's failure reason), the API rebuilds the same ApiError. Queue trouble maps to the catalog too.
import { ApiError, isErrorCode, type ErrorDetails } from "../../domain/errors.js";
import { CallerGoneError, JobFailedError, JobTimeoutError, QueueBusyError } from "../../adapters/queue/request-reply.js";

const MARK = "api-error:";

/** The failure reason a worker throws for an ApiError. */
export function encodeApiError(error: ApiError): string {
  return MARK + JSON.stringify({ code: error.code, message: error.message, details: error.details, retryAfterSeconds: error.retryAfterSeconds });
}

/** The ApiError a failure reason carries, or undefined. */
export function decodeApiError(reason: string): ApiError | undefined {
  const at = reason.indexOf(MARK);
  if (at === -1) return undefined;
  try {
    const { code, message, details, retryAfterSeconds, headers } = JSON.parse(reason.slice(at + MARK.length)) as {
      code: unknown;
      message?: string;
      details?: ErrorDetails;
      retryAfterSeconds?: unknown;
      /** How a worker before session 31 sent the wait: while a deploy rolls, API and worker may differ. */
      headers?: Record<string, unknown>;
    };
    const seconds = retryAfterSeconds ?? (typeof headers?.["Retry-After"] === "string" ? Number(headers["Retry-After"]) : undefined);
    const wait = typeof seconds === "number" && Number.isFinite(seconds) && seconds >= 0 ? { retryAfterSeconds: seconds } : undefined;
    return isErrorCode(code) ? new ApiError(code, message, details, wait) : undefined;
  } catch {
    return undefined;
  }
}

/** A job client's error as the answer: the worker's ApiError, 429 BUSY, or 503 UNAVAILABLE. */
export function fromJobError(error: unknown): unknown {
  if (error instanceof QueueBusyError) return new ApiError("BUSY", undefined, undefined, { retryAfterSeconds: 1 });
  // The client disconnected: nobody reads this answer; it is not a fault of the service.
  if (error instanceof CallerGoneError) return new ApiError("UNAVAILABLE", "The request was cancelled by its client");
  if (error instanceof JobTimeoutError) return new ApiError("UNAVAILABLE", "The prepare worker did not answer in time: retry shortly");
  if (error instanceof JobFailedError) return decodeApiError(error.message) ?? new ApiError("INTERNAL");
  if (error instanceof Error && /is not reachable|Connection is closed|enableOfflineQueue/.test(error.message)) {
    return new ApiError("UNAVAILABLE", "The job queue is unavailable: retry shortly");
  }
  return error;
}
