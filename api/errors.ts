// Turns every thrown thing into a catalog answer. Nothing escapes as a bare 500 with a stack:
// - ApiError → its status and envelope;
// - Hono's HTTPException (malformed JSON 400, wrong content type 415, body too large 413) → the
//   matching code (Hono throws these before the zod hook runs);
// - Postgres refusing a request's text for its bytes (a NUL: SQLSTATE 22021) → 400 INVALID_REQUEST;
// - Postgres / Redis / BullMQ / chain RPC connection failures → 503 UNAVAILABLE;
// - a missing view of the index (before the indexer made them, a devnet restart) → 503 UNAVAILABLE;
// - anything else → a logged 500 INTERNAL with no stack or message of the fault in the body.
import type { Context, ErrorHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { ApiError, type ErrorCode } from "../src/domain/errors.js";
import type { Logger } from "../src/logger.js";
import { fail } from "./envelope.js";

const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
  // postgres.js
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
]);

// Postgres SQLSTATEs of an unusable server: 08xxx connection exceptions, 57P01-57P03 shutdown and
// start-up, 53300 too many connections.
const PG_UNAVAILABLE = /^(08...|57P0[123]|53300)$/;

const UNAVAILABLE_NAMES = new Set([
  "MaxRetriesPerRequestError", // ioredis
  // viem: the chain's RPC does not answer
  "HttpRequestError",
  "TimeoutError",
  "WebSocketRequestError",
  "SocketClosedError",
]);

const UNAVAILABLE_MESSAGES = [
  /^Connection is closed\.?$/, // ioredis
  /Stream isn't writeable and enableOfflineQueue options is false/, // ioredis, offline
  /Reached the max retries per request limit/, // ioredis MaxRetriesPerRequestError
  /^Redis connection is not ready$/, // rate-limiter-flexible
  /^Redis at \S+ is not reachable$/, // the job client (src/jobs/request-reply.ts)
  /^Connection terminated/, // pg
  /timeout exceeded when trying to connect/, // pg-pool
  /^write (EPIPE|ECONNRESET)/,
];

/** True when `error` (or a cause of it) says Postgres, Redis or the chain RPC cannot be reached. */
export function isConnectionError(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 5) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && (NETWORK_CODES.has(code) || PG_UNAVAILABLE.test(code))) return true;
  if (UNAVAILABLE_NAMES.has(error.name)) return true;
  if (UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(error.message))) return true;
  if (error instanceof AggregateError && error.errors.some((inner) => isConnectionError(inner, depth + 1))) return true;
  return isConnectionError(error.cause, depth + 1);
}

function fromHttpException(error: HTTPException): ApiError {
  const status = error.status;
  const code: ErrorCode | undefined = (
    { 400: "INVALID_REQUEST", 401: "SESSION_REQUIRED", 404: "NOT_FOUND", 413: "PAYLOAD_TOO_LARGE", 415: "UNSUPPORTED_MEDIA_TYPE", 429: "RATE_LIMITED", 503: "UNAVAILABLE" } as const
  )[status as 400];
  // Hono's 400 is "Malformed JSON in request body"; say it in our words.
  if (code === "INVALID_REQUEST") return new ApiError(code, "body: must be valid JSON", { field: "body", issues: [{ field: "body", message: "must be valid JSON" }] });
  if (code) return new ApiError(code);
  // Any other client error of a Hono middleware is still the request's fault, never a 500.
  return status >= 400 && status < 500 ? new ApiError("INVALID_REQUEST") : new ApiError("INTERNAL");
}

/**
 * Postgres refused a text value for its bytes (SQLSTATE 22021, character_not_in_repertoire: a NUL, or
 * invalid UTF-8). The service never writes such text itself; only a request's value can carry it.
 */
export function isUnstorableText(error: unknown): boolean {
  return error instanceof Error && error.name === "PostgresError" && (error as { code?: unknown }).code === "22021";
}

/**
 * A view of the index is missing (SQLSTATE 42P01 naming a relation of `viewsSchema`): the indexer has
 * not made its views yet, or dropped them (a devnet restart). Transient, like a dependency that is down.
 */
export function isMissingView(error: unknown, viewsSchema: string): boolean {
  return error instanceof Error && (error as { code?: unknown }).code === "42P01" && error.message.includes(`"${viewsSchema}.`);
}

/** `index` (the app's readiness source), when given: a missing view answers 503 and closes the gate at once. */
export function errorHandler(logger: Logger, index?: { readonly viewsSchema: string; viewsMissing(): void }): ErrorHandler {
  return (error, c) => {
    if (error instanceof ApiError) return fail(c, error);
    if (index && isMissingView(error, index.viewsSchema)) {
      index.viewsMissing();
      logger.warn({ requestId: requestIdOf(c), err: describe(error) }, "index views missing");
      return fail(c, new ApiError("UNAVAILABLE", "The index is not ready (its views are being made): retry shortly", undefined, { headers: { "Retry-After": "5" } }));
    }
    if (error instanceof HTTPException) {
      const apiError = fromHttpException(error);
      if (apiError.code === "INTERNAL") logFault(logger, c, error);
      return fail(c, apiError);
    }
    if (isUnstorableText(error)) {
      // A NUL or a broken UTF-8 sequence in a request's text reached a query: the request's fault.
      logger.warn({ requestId: requestIdOf(c), err: describe(error) }, "request text Postgres cannot hold");
      return fail(c, new ApiError("INVALID_REQUEST", "A text value holds a character that cannot be stored (NUL or invalid UTF-8)"));
    }
    if (isConnectionError(error)) {
      logger.warn({ requestId: requestIdOf(c), err: describe(error) }, "dependency unavailable");
      return fail(c, new ApiError("UNAVAILABLE"));
    }
    logFault(logger, c, error);
    return fail(c, new ApiError("INTERNAL"));
  };
}

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
