// The request id: the caller's `X-Request-Id` when it is short and plain, else a random UUID; kept
// in `c.get("requestId")` (logs) and sent back in `X-Request-Id` (through setResponseHeader: see
// there why). Synchronous, so it adds no async frame to every request.
import type { MiddlewareHandler } from "hono";
import { setResponseHeader } from "./response-header.js";

const PLAIN = /^[\w\-=]+$/;

export function requestId(limitLength = 64): MiddlewareHandler {
  return (c, next) => {
    const given = c.req.header("x-request-id");
    const id = given && given.length <= limitLength && PLAIN.test(given) ? given : crypto.randomUUID();
    c.set("requestId" as never, id as never);
    setResponseHeader(c, "X-Request-Id", id);
    return next();
  };
}
