// The request id: the caller's `X-Request-Id` when it is short and plain, else a random UUID; kept
// in `c.get("requestId")` (logs) and sent back in `X-Request-Id`. Hono's middleware makes and
// stores it; the header goes through setResponseHeader (see there why).
import type { MiddlewareHandler } from "hono";
import { requestId as honoRequestId } from "hono/request-id";
import { setResponseHeader } from "./response-header.js";

const PLAIN = /^[\w\-=]+$/;

export function requestId(limitLength = 64): MiddlewareHandler {
  const assign = honoRequestId({
    headerName: "", // read and written below
    generator: (c) => {
      const given = c.req.header("x-request-id");
      return given && given.length <= limitLength && PLAIN.test(given) ? given : crypto.randomUUID();
    },
  });
  return (c, next) =>
    assign(c, async () => {
      setResponseHeader(c, "X-Request-Id", c.get("requestId" as never) as string);
      await next();
    });
}
