// Refuses JSON bodies that carry a NUL character (the escape \u0000 or the byte itself) with 400
// INVALID_REQUEST before any handler or job sees them: Postgres cannot hold NUL in text or jsonb, so
// such a value would fail deep inside a prepare (in a worker, where the API's own mapping of
// Postgres' refusal cannot reach) as a 500. No field of the API has a use for NUL.
import type { MiddlewareHandler } from "hono";
import { ApiError } from "../../domain/errors.js";

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding a NUL is this middleware's purpose
const NUL = /\\u0000|\u0000/i;

export function noNulInJson(): MiddlewareHandler {
  const check: MiddlewareHandler = async (c, next) => {
    const text = await c.req.text(); // cached by Hono: the validator's c.req.json() reads the same text
    if (NUL.test(text)) throw new ApiError("INVALID_REQUEST", "Text values must not contain the NUL character (\\u0000)");
    await next();
  };
  // Reads (no body) pass straight through, without an async frame of their own.
  return (c, next) => (c.req.method !== "GET" && c.req.method !== "HEAD" && /json/i.test(c.req.header("content-type") ?? "") ? check(c, next) : next());
}
