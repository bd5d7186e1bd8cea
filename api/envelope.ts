// The two answer shapes: success `{data}` and error `{error, code, details?}`.
// Serialisation never throws on bigint: bigints become decimal strings (amounts are decimal
// strings everywhere), Dates become ISO 8601 strings in UTC.
import type { Context, TypedResponse } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { JSONParsed } from "hono/utils/types";
import { stringify } from "../usecases/answer-body.js";
import { ApiError, errorCatalog, type ErrorCode, type ErrorDetails } from "../domain/errors.js";

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
const UNAVAILABLE_RETRY_SECONDS = "5";

/**
 * An error answer `{error, code, details?}` with the code's status and the error's headers. Every 503
 * UNAVAILABLE says when to retry (Retry-After), whichever layer (the API or a worker) found the cause.
 */
export function fail(c: Context, err: ApiError | ErrorCode): Response {
  const error = typeof err === "string" ? new ApiError(err) : err;
  const retry: Record<string, string> = error.code === "UNAVAILABLE" && !error.headers?.["Retry-After"] ? { "Retry-After": UNAVAILABLE_RETRY_SECONDS } : {};
  const headers: Record<string, string> = { ...retry, ...error.headers, ...JSON_HEADERS };
  return c.body(stringify(errorBody(error)), errorCatalog[error.code].status, headers);
}
