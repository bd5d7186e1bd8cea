// Per-client rate limits in Redis, so they hold across API replicas. The client is the `owner`
// where the request names one (path /accounts/{owner}, /report-card/{owner}, /account/{owner},
// query `owner`, or a JSON body's `owner`), else the client IP. Over the limit: 429 RATE_LIMITED
// with Retry-After. When Redis is down, an in-memory insurance limiter keeps limiting (per
// replica) and requests keep being answered: limits never turn a Redis outage into errors.
//
// Each API process takes a client's points from Redis a lease at a time (a tenth of the limit, at
// least 1 and at most 50) and spends them in memory: one Redis round trip per lease instead of per request. A lease
// ends with its window. What this costs in exactness: a client is never let through more than the
// limit, and with R replicas it may be refused up to (lease - 1) x (R - 1) requests early (points
// leased by a replica it no longer calls); with one replica, or limits of 19 or fewer, it is exact.
//
// A factory: createApp puts one on /v1/*; a route can add a stricter one of its own, e.g.
// `rateLimit({redis, name: "basket-plan", points: 6, duration: 60, ...})` as route middleware.
import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context, MiddlewareHandler, Next } from "hono";
import type { Redis } from "ioredis";
import { LRUCache } from "lru-cache";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { ApiError } from "../../src/domain/errors.js";
import type { Logger } from "../../src/logger.js";

export type RateLimitOptions = {
  /** Requests allowed per client and window. */
  points: number;
  /** The window, in seconds. */
  duration: number;
  /** Redis key prefix of this limiter (apps sharing it share the counts). */
  keyPrefix: string;
  /** Proxies in front of the API whose X-Forwarded-For entries are trusted (0: the socket address). */
  trustProxyHops: number;
};

export const DEFAULT_RATE_LIMIT: RateLimitOptions = { points: 120, duration: 60, keyPrefix: "agent:rl:api", trustProxyHops: 0 };

export type RateLimitParameters = Partial<RateLimitOptions> & {
  redis: Redis;
  logger?: Logger;
  /** Overrides how the client is named (default: owner, else IP). */
  key?: (c: Context) => string | Promise<string>;
};

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const OWNER_IN_PATH = /\/(?:accounts|account|report-card)\/(0x[0-9a-fA-F]{40})(?:\/|$)/;

/** The client IP: the socket's address, or the entry `hops` from the right of X-Forwarded-For. */
export function clientIp(c: Context, trustProxyHops: number): string {
  if (trustProxyHops > 0) {
    const forwarded = (c.req.header("x-forwarded-for") ?? "").split(",").map((part) => part.trim()).filter(Boolean);
    const entry = forwarded[forwarded.length - trustProxyHops];
    if (entry) return entry;
  }
  try {
    return getConnInfo(c).remote.address ?? "unknown";
  } catch {
    return "unknown"; // no socket (app.request in tests)
  }
}

/** The owner the request's path or `owner` query names, lowercased, or undefined. */
export function ownerInUrl(c: Context): string | undefined {
  const inPath = OWNER_IN_PATH.exec(c.req.path)?.[1];
  if (inPath) return inPath.toLowerCase();
  const inQuery = c.req.query("owner");
  if (inQuery && ADDRESS.test(inQuery)) return inQuery.toLowerCase();
  return undefined;
}

/** Whether the request carries a JSON body (whose `owner` may name the client). */
function hasJsonBody(c: Context): boolean {
  return c.req.method === "POST" && /^application\/(?:[\w.+-]+\+)?json/i.test(c.req.header("content-type") ?? "");
}

/** The `owner` of a JSON body, lowercased, or undefined (also for malformed JSON). */
async function ownerInBody(c: Context): Promise<string | undefined> {
  try {
    // Hono caches the body text, so the route's validator reads it again (and reports bad JSON).
    const body: unknown = await c.req.json();
    const owner = typeof body === "object" && body !== null ? (body as { owner?: unknown }).owner : undefined;
    if (typeof owner === "string" && ADDRESS.test(owner)) return owner.toLowerCase();
  } catch {
    // Malformed JSON: the validator answers 400; limit by IP meanwhile.
  }
  return undefined;
}

export function rateLimit(parameters: RateLimitParameters): MiddlewareHandler {
  const options = { ...DEFAULT_RATE_LIMIT, ...withoutUndefined(parameters) };
  const limiter = new RateLimiterRedis({
    storeClient: parameters.redis,
    keyPrefix: options.keyPrefix,
    points: options.points,
    duration: options.duration,
    rejectIfRedisNotReady: true, // go to the insurance limiter at once, never queue behind a dead Redis
    insuranceLimiter: new RateLimiterMemory({ keyPrefix: options.keyPrefix, points: options.points, duration: options.duration }),
  });
  const take = leasedConsume(limiter, Math.min(MAX_LEASE, Math.max(1, Math.floor(options.points / LEASE_DIVISOR))));
  // The client's key: at once for reads (owner in the URL, else the IP); a JSON body is read first.
  const keyOf =
    parameters.key ??
    ((c: Context): string | Promise<string> => {
      const owner = ownerInUrl(c);
      if (owner) return `owner:${owner}`;
      const ip = () => `ip:${clientIp(c, options.trustProxyHops)}`;
      return hasJsonBody(c) ? ownerInBody(c).then((inBody) => (inBody ? `owner:${inBody}` : ip())) : ip();
    });

  const refuseOrPass = async (taking: Promise<void>, next: Next) => {
    try {
      await taking;
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        const seconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
        throw new ApiError("RATE_LIMITED", `Too many requests: retry after ${seconds} s`, undefined, {
          headers: { "Retry-After": String(seconds) },
        });
      }
      // Both stores failed (should not happen with the memory insurance): answer rather than refuse.
      parameters.logger?.warn({ err: rejection }, "rate limiter failed; request let through");
    }
    await next();
  };
  // A point from the client's lease goes on synchronously: no async frame for most requests.
  const limited = (key: string, next: Next) => {
    const taking = take(key);
    return taking ? refuseOrPass(taking, next) : next();
  };

  return (c, next) => {
    if (c.req.method === "OPTIONS") return next(); // CORS preflights cost nothing
    const key = keyOf(c);
    return typeof key === "string" ? limited(key, next) : key.then((k) => limited(k, next));
  };
}

/** A lease is this fraction of the limit, and at most MAX_LEASE points. */
const LEASE_DIVISOR = 10;
const MAX_LEASE = 50;
/** Clients whose lease one process remembers (least recently used go first: they lease again). */
const MAX_LEASES = 100_000;

type Lease = { left: number; until: number };

/**
 * `consume(key)` in leases of `size` points: a request spends a point of its client's lease in
 * memory, or takes a new lease (one at a time per client: concurrent requests wait for it rather than
 * each taking one); near the limit (a whole lease refused) the lease is given back and the request
 * takes its own point. Answers undefined when the point came from the lease (synchronously), else a
 * promise that rejects with the limiter's RateLimiterRes when over the limit.
 */
export function leasedConsume(limiter: RateLimiterRedis, size: number): (key: string) => Promise<void> | undefined {
  if (size <= 1) return async (key) => void (await limiter.consume(key));
  const leases = new LRUCache<string, Lease>({ max: MAX_LEASES });
  const leasing = new Map<string, Promise<void>>();
  const fromLease = (key: string): boolean => {
    const lease = leases.get(key);
    if (!lease || lease.left <= 0 || Date.now() >= lease.until) return false;
    lease.left--;
    return true;
  };
  const takeLease = async (key: string): Promise<void> => {
    for (;;) {
      const inFlight = leasing.get(key);
      if (!inFlight) break;
      await inFlight; // never rejects
      if (fromLease(key)) return;
    }
    let done!: () => void;
    leasing.set(key, new Promise<void>((resolve) => (done = resolve)));
    try {
      const res = await limiter.consume(key, size);
      leases.set(key, { left: size - 1, until: Date.now() + res.msBeforeNext }); // one is this request's
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      // Fewer than a lease left in this window: give the lease back, take one point.
      await limiter.reward(key, size).catch(() => {});
      await limiter.consume(key, 1);
    } finally {
      leasing.delete(key);
      done();
    }
  };
  return (key) => (fromLease(key) ? undefined : takeLease(key));
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
