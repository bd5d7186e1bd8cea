// One structured JSON line per request: method, path, route, status, ms, request id.
// Never logged: query strings (cursors, tokens), headers (Authorization), bodies (signatures), and
// the secret segment of sign links (`/sign-requests/{id}`, `/sign/{id}` are logged as `:id`): the
// logger's pino `redact` rewrites `path` (adapters/logger.ts), and no header or body is passed.
import type { Context } from "hono";
import type { Logger } from "../../adapters/logger.js";

const PROBES = new Set(["/ready", "/health"]);

/** Writes the line of an answered request (`observeRequests` calls it once per request). */
export function logRequest(logger: Logger, c: Context, route: string, status: number, ms: number): void {
  const fields = {
    requestId: c.get("requestId" as never) as string | undefined,
    method: c.req.method,
    // The logger's redact (adapters/logger.ts REDACT) drops the query and the sign-link secret.
    path: c.req.path,
    route,
    status,
    ms: Math.round(ms * 10) / 10,
  };
  // A probe's 503 (/ready while the index backfills) is an expected state, not a fault.
  if (status >= 500 && !(status === 503 && PROBES.has(route))) logger.warn(fields, "request");
  else logger.info(fields, "request");
}
