// Turns every thrown thing into a catalog answer. Nothing escapes as a bare 500 with a stack:
// - ApiError → its status and envelope;
// - Hono's HTTPException (malformed JSON 400, wrong content type 415) → the matching code (Hono throws
//   these before the zod hook runs); a body in another media type is the spec's 400 INVALID_REQUEST too,
//   naming the media type expected;
// - Postgres refusing a request's text for its bytes (a NUL: SQLSTATE 22021) → 400 INVALID_REQUEST;
// - Postgres / Redis / BullMQ / chain RPC connection failures → 503 UNAVAILABLE;
// - a missing view of the index (before the indexer made them, a devnet restart) → 503 UNAVAILABLE;
// - anything else → a logged 500 INTERNAL with no stack or message of the fault in the body.
import type { Context, ErrorHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { ApiError, detailsProblems, type ErrorCode } from "../domain/errors.js";
import type { Logger } from "../adapters/logger.js";
import { isConnectionError, isMissingView, isTransientConflict, isUnstorableText } from "../adapters/failures.js";
import { fail } from "./envelope.js";

/** 400 INVALID_REQUEST for a body that is not JSON (the zod-openapi gate's 415), naming what was sent. */
function notJson(contentType: string | undefined): ApiError<"INVALID_REQUEST"> {
  const field = "content-type";
  const message = contentType ? `must be application/json, not ${contentType.split(";")[0]!.trim()}` : "must be application/json (the body was sent with none)";
  return new ApiError("INVALID_REQUEST", `${field}: ${message}`, { field, issues: [{ field, message }] });
}

function fromHttpException(error: HTTPException, c: Context): ApiError {
  const status = error.status;
  if (status === 415) return notJson(c.req.header("content-type"));
  const code: ErrorCode | undefined = (
    {
      400: "INVALID_REQUEST",
      401: "SESSION_REQUIRED",
      404: "NOT_FOUND",
      429: "RATE_LIMITED",
      503: "UNAVAILABLE",
    } as const
  )[status as 400];
  // Hono's 400 is "Malformed JSON in request body"; say it in our words.
  if (code === "INVALID_REQUEST")
    return new ApiError(code, "body: must be valid JSON", { field: "body", issues: [{ field: "body", message: "must be valid JSON" }] });
  if (code === "SESSION_REQUIRED" && challengeOf(error)) return new ApiError(code, "Credentials required");
  if (code) return new ApiError(code);
  // Any other client error of a Hono middleware is still the request's fault, never a 500.
  return status >= 400 && status < 500 ? new ApiError("INVALID_REQUEST") : new ApiError("INTERNAL");
}

/** `index` (the app's readiness source), when given: a missing view answers 503 and closes the gate at once. */
export function errorHandler(logger: Logger, index?: { readonly viewsSchema: string; viewsMissing(): void }): ErrorHandler {
  return (error, c) => {
    if (error instanceof ApiError) {
      // A refusal's details outside the spec's fields and units is a fault of ours: answered, and logged.
      const problems = detailsProblems(error.code, error.details);
      if (problems.length > 0) logger.error({ requestId: requestIdOf(c), code: error.code, problems }, "refusal details outside the spec");
      return fail(c, error);
    }
    if (index && isMissingView(error, index.viewsSchema)) {
      index.viewsMissing();
      logger.warn({ requestId: requestIdOf(c), err: describe(error) }, "index views missing");
      return fail(c, new ApiError("UNAVAILABLE", "The index is not ready (its views are being made): retry shortly", undefined, { retryAfterSeconds: 5 }));
    }
    if (error instanceof HTTPException) {
      const apiError = fromHttpException(error, c);
      if (apiError.code === "INTERNAL") logFault(logger, c, error);
      // A challenge (the queue dashboard's HTTP Basic) stays on the answer: without it a browser never asks.
      const challenge = apiError.code === "SESSION_REQUIRED" ? challengeOf(error) : null;
      return fail(c, apiError, challenge ? { "WWW-Authenticate": challenge } : undefined);
    }
    if (isUnstorableText(error)) {
      // A NUL or a broken UTF-8 sequence in a request's text reached a query: the request's fault.
      logger.warn({ requestId: requestIdOf(c), err: describe(error) }, "request text Postgres cannot hold");
      return fail(c, new ApiError("INVALID_REQUEST", "A text value holds a character that cannot be stored (NUL or invalid UTF-8)"));
    }
    if (isTransientConflict(error)) {
      logger.warn({ requestId: requestIdOf(c), err: describe(error) }, "transient Postgres conflict");
      return fail(c, new ApiError("UNAVAILABLE", undefined, undefined, { retryAfterSeconds: 1 }));
    }
    if (isConnectionError(error)) {
      logger.warn({ requestId: requestIdOf(c), err: describe(error) }, "dependency unavailable");
      return fail(c, new ApiError("UNAVAILABLE"));
    }
    logFault(logger, c, error);
    return fail(c, new ApiError("INTERNAL"));
  };
}

const challengeOf = (error: HTTPException): string | null => error.getResponse().headers.get("WWW-Authenticate");

export const notFoundHandler: NotFoundHandler = (c) => fail(c, new ApiError("NOT_FOUND", "no route matches this method and path"));

function logFault(logger: Logger, c: Context, error: unknown): void {
  logger.error({ requestId: requestIdOf(c), method: c.req.method, err: error }, "unhandled error");
}

function requestIdOf(c: Context): string | undefined {
  return c.get("requestId" as never) as string | undefined;
}

function describe(error: unknown): Record<string, unknown> {
  return error instanceof Error ? { name: error.name, message: error.message, code: (error as { code?: unknown }).code } : { value: String(error) };
}
