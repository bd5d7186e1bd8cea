// Who waits for a queued job: the rate limit's client key (never an owner the request names) and the
// request's signal, which aborts when the client disconnects. Jobs count against the client's share of
// each queue (adapters/queue/request-reply.ts), and a job whose caller has gone is removed or dropped.
import type { Context } from "hono";
import type { Caller } from "../adapters/queue/request-reply.js";
import type { AppDeps } from "./deps.js";
import { clientIp, clientKey, DEFAULT_RATE_LIMIT } from "./middleware/rate-limit.js";

export function callerOf(c: Context, deps: Pick<AppDeps, "rateLimit">): Caller {
  return { client: clientKey(clientIp(c, deps.rateLimit?.trustProxyHops ?? DEFAULT_RATE_LIMIT.trustProxyHops)), signal: c.req.raw.signal };
}

/** The deps of a backtest or quote with this request's caller attached. */
export const withCaller = <D extends Pick<AppDeps, "rateLimit">>(c: Context, deps: D): D & { caller: Caller } => ({ ...deps, caller: callerOf(c, deps) });
