// Refuses JSON bodies nested deeper than 32 with 400 INVALID_REQUEST before anything parses them
// deeper: a 60 KB body can nest 30,000 deep, and the recursive walks that follow (zod, JSON.stringify
// into a queued job, structured clone) overflow the stack on it (a 500). The scan is one pass over
// the raw text counting brackets outside strings: no parse, no recursion.
import type { MiddlewareHandler } from "hono";
import { ApiError } from "../../domain/errors.js";

export const MAX_JSON_DEPTH = 32;

const QUOTE = 34; // "
const BACKSLASH = 92;
const OPEN_BRACE = 123;
const OPEN_BRACKET = 91;
const CLOSE_BRACE = 125;
const CLOSE_BRACKET = 93;

/** True when `text` opens more than `max` arrays/objects inside one another (strings skipped). */
export function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === BACKSLASH) i++;
      else if (ch === QUOTE) inString = false;
    } else if (ch === QUOTE) inString = true;
    else if (ch === OPEN_BRACE || ch === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (ch === CLOSE_BRACE || ch === CLOSE_BRACKET) depth--;
  }
  return false;
}

export function maxJsonDepth(max: number = MAX_JSON_DEPTH): MiddlewareHandler {
  const check: MiddlewareHandler = async (c, next) => {
    const text = await c.req.text(); // cached by Hono: the validator reads the same text
    if (nestedDeeperThan(text, max)) {
      throw new ApiError("INVALID_REQUEST", `body: JSON nested deeper than ${max} levels`, {
        field: "body",
        issues: [{ field: "body", message: `must not nest arrays and objects deeper than ${max} levels` }],
      });
    }
    await next();
  };
  // Reads (no body) pass straight through, without an async frame of their own.
  return (c, next) => (c.req.method !== "GET" && c.req.method !== "HEAD" && /json/i.test(c.req.header("content-type") ?? "") ? check(c, next) : next());
}
