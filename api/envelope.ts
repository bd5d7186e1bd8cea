// The two answer shapes: success `{data}` and error `{error, code, details?}`.
// Serialisation never throws on bigint: bigints become decimal strings (amounts are decimal
// strings everywhere), Dates become ISO 8601 strings in UTC.
import type { Context, TypedResponse } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { JSONParsed } from "hono/utils/types";
import { stringify } from "../usecases/answer-body.js";
import { ApiError, type ErrorCode, type ErrorDetails } from "../domain/errors.js";
import { errorStatus } from "../contract/error-statuses.js";

/** The JSON shape of a value once serialised: bigint → string, Date → string. */
export type Serialized<T> = T extends bigint
  ? string
  : T extends Date
    ? string
    : T extends readonly (infer U)[]
      ? Serialized<U>[]
      : T extends object
        ? { [K in keyof T]: Serialized<T[K]> }
        : T;

export type ErrorBody = { error: string; code: ErrorCode; details?: ErrorDetails };

export { stringify };

/** The Content-Type of every JSON answer (routes that answer a pre-serialized body use it too). */
export const JSON_HEADERS = { "Content-Type": "application/json; charset=UTF-8" } as const;

/** A success answer `{data}` (status 200 unless given). */
export function ok<T, S extends ContentfulStatusCode = 200>(
  c: Context,
  data: T,
  status?: S,
): Response & TypedResponse<JSONParsed<{ data: Serialized<T> }>, S, "json"> {
  return c.body(stringify({ data }), status ?? 200, JSON_HEADERS) as never;
}

/** The error body of an ApiError. */
export function errorBody(err: ApiError): ErrorBody {
  return err.details === undefined ? { error: err.message, code: err.code } : { error: err.message, code: err.code, details: err.details };
}

/** How long a client waits before retrying a 503 UNAVAILABLE that names no wait of its own. */
const UNAVAILABLE_RETRY_SECONDS = 5;

/**
 * An error answer `{error, code, details?}` with the code's status (contract/error-statuses.ts), its wait as
 * Retry-After, and `headers` of the face's own. Every 503 UNAVAILABLE says when to retry, whichever layer
 * (the API or a worker) found the cause.
 */
export function fail(c: Context, err: ApiError | ErrorCode, headers?: Record<string, string>): Response {
  const error = typeof err === "string" ? new ApiError(err) : err;
  const wait = error.retryAfterSeconds ?? (error.code === "UNAVAILABLE" ? UNAVAILABLE_RETRY_SECONDS : undefined);
  const retry: Record<string, string> = wait === undefined ? {} : { "Retry-After": String(wait) };
  return c.body(stringify(errorBody(error)), errorStatus[error.code], { ...retry, ...headers, ...JSON_HEADERS });
}
