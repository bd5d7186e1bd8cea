// One structured JSON line per request: method, path, route, status, ms, request id.
// Never logged: query strings (cursors, tokens), headers (Authorization), bodies (signatures), and
// the secret segment of sign links (`/sign-requests/{id}`, `/sign/{id}` are logged as `:id`).
import type { Context } from "hono";
import type { Logger } from "../../adapters/logger.js";

const SECRET_SEGMENTS: [RegExp, string][] = [
  [/\/sign-requests\/[^/]+/g, "/sign-requests/:id"],
  [/\/sign\/[^/]+/g, "/sign/:id"],
];

const PROBES = new Set(["/ready", "/health"]);

/** The request path without its query and with secret segments replaced. */
export function redactPath(path: string): string {
  const query = path.indexOf("?");
  let redacted = query < 0 ? path : path.slice(0, query);
  // Most paths hold no sign link: skip the replacements for them.
  if (redacted.includes("/sign")) for (const [pattern, replacement] of SECRET_SEGMENTS) redacted = redacted.replace(pattern, replacement);
  // Keep log lines short and printable whatever a client sends.
  return redacted.length > 200 ? `${redacted.slice(0, 200)}…` : redacted;
}

/** Writes the line of an answered request (`observeRequests` calls it once per request). */
export function logRequest(logger: Logger, c: Context, route: string, status: number, ms: number): void {
  const fields = {
    requestId: c.get("requestId" as never) as string | undefined,
    method: c.req.method,
    path: redactPath(c.req.path),
    route,
    status,
    ms: Math.round(ms * 10) / 10,
  };
  // A probe's 503 (/ready while the index backfills) is an expected state, not a fault.
  if (status >= 500 && !(status === 503 && PROBES.has(route))) logger.warn(fields, "request");
  else logger.info(fields, "request");
}
