// Caps request bodies (64 KiB unless set): a larger body is refused with 413 PAYLOAD_TOO_LARGE
// before anything reads it. Hono checks Content-Length first and counts streamed bodies.
import type { MiddlewareHandler } from "hono";
import { bodyLimit as honoBodyLimit } from "hono/body-limit";
import { ApiError } from "../../src/domain/errors.js";

export const DEFAULT_BODY_LIMIT_BYTES = 64 * 1024;

export function bodyLimit(maxBytes: number = DEFAULT_BODY_LIMIT_BYTES): MiddlewareHandler {
  return honoBodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new ApiError("PAYLOAD_TOO_LARGE", `Request body too large: at most ${maxBytes} bytes`);
    },
  });
}
