// Lets a request through only with `Authorization: Bearer <token>` (compared in constant time);
// anything else is 401 SESSION_REQUIRED. Guards /metrics on the API port when METRICS_TOKEN is set.
import { createHash, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { ApiError } from "../../domain/errors.js";

const digest = (value: string) => createHash("sha256").update(value).digest();

export function bearerOnly(token: string): MiddlewareHandler {
  const expected = digest(token);
  return async (c, next) => {
    const given = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "")?.[1];
    if (!given || !timingSafeEqual(digest(given), expected)) throw new ApiError("SESSION_REQUIRED", "A bearer token is required");
    await next();
  };
}
