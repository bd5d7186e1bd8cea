// Caps request bodies (64 KiB unless set): a larger body is refused before anything reads it, with the
// spec's 400 INVALID_REQUEST naming the body, its size (when declared) and the limit. Hono checks
// Content-Length first and counts streamed bodies.
import type { MiddlewareHandler } from "hono";
import { bodyLimit as honoBodyLimit } from "hono/body-limit";
import { ApiError } from "../../domain/errors.js";

export const DEFAULT_BODY_LIMIT_BYTES = 64 * 1024;

export function bodyLimit(maxBytes: number = DEFAULT_BODY_LIMIT_BYTES): MiddlewareHandler {
  const limit = honoBodyLimit({
    maxSize: maxBytes,
    onError: (c) => {
      const declared = Number(c.req.header("content-length"));
      const size = Number.isSafeInteger(declared) && declared > maxBytes ? `is ${declared} bytes` : "is larger than the limit";
      const message = `${size}: at most ${maxBytes} bytes (${maxBytes / 1024} KiB)`;
      throw new ApiError("INVALID_REQUEST", `body: ${message}`, { field: "body", issues: [{ field: "body", message }] });
    },
  });
  // An HTTP/1.1 request has a body only with one of these headers: a GET or HEAD without them skips
  // the check, which would build the whole fetch Request (c.req.raw) for nothing on every read.
  return (c, next) =>
    (c.req.method === "GET" || c.req.method === "HEAD") && c.req.header("content-length") === undefined && c.req.header("transfer-encoding") === undefined
      ? next()
      : limit(c, next);
}
