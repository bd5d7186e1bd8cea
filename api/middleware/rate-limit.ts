// Per-client rate limits in Redis, so they hold across API replicas. A request is counted against
// who sends it, never against what it names: its client address (the socket's, or behind
// TRUST_PROXY_HOPS proxies the X-Forwarded-For hop), and, when it carries a session
// (`Authorization: Bearer`), also against a hash of that token. A client naming a fresh owner each
// time spends its own budget; a client naming someone else's address spends nothing of theirs.
// Over the limit: 429 RATE_LIMITED with Retry-After. Every limited answer (2xx and 429) says the
// policy and what is left (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy:
// "client";q=120;w=60` and `RateLimit: "client";r=57;t=34`. When Redis is down, an in-memory
// insurance limiter keeps limiting (per replica) and requests keep being answered: limits never
// turn a Redis outage into errors.
//
// Each API process takes a client's points from Redis a lease at a time (a tenth of the limit, at
// least 1 and at most 50) and spends them in memory: one Redis round trip per lease instead of per request. A lease
// ends with its window. What this costs in exactness: a client is never let through more than the
// limit, and with R replicas it may be refused up to (lease - 1) x (R - 1) requests early (points
// leased by a replica it no longer calls); with one replica, or limits of 19 or fewer, it is exact.
// `r` in the RateLimit header is what Redis had left at the client's last take from it (a lease, or the points
// a route charged), plus what is left of its lease in this process, read when the answer is made: it falls by
// what the request cost (tools/list on /mcp costs a point per 16 KiB of answer, a tool call its /v1 route's
// point too). Each policy name is listed once.
//
// A factory: createApp puts one on /v1/*, /mcp and /sign/*; a route can add a stricter one of its
// own, e.g. `rateLimit({redis, name: "basket-plan", points: 6, duration: 60, ...})`.
import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context, MiddlewareHandler, Next } from "hono";
import type { Redis } from "ioredis";
import type { ServerResponse } from "node:http";
import { isIPv6 } from "node:net";
import { LRUCache } from "lru-cache";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { ApiError } from "../../domain/errors.js";
import { hashToken } from "../../usecases/sessions.js";
import type { Logger } from "../../adapters/logger.js";

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
  /** The policy's name in the RateLimit headers (default "client"). */
  name?: string;
  /** Also limit a request that carries a bearer token per session (a hash of the token), at the same rate. */
  perSession?: boolean;
  /** Overrides the client's key (default `clientKey(clientIp(c))`); it must name who sends, never what the request names. */
  key?: (c: Context) => string;
};

/**
 * The client address an in-process caller vouches for (the /mcp route's tool calls run through
 * `app.request` with it in their env): a remote request cannot set env, so it cannot claim one.
 */
export type ClientBindings = { agentClientIp?: string };

/** The client IP: the in-process caller's, the entry `hops` from the right of X-Forwarded-For, or the socket's address. */
export function clientIp(c: Context, trustProxyHops: number): string {
  const vouched = (c.env as ClientBindings | undefined)?.agentClientIp;
  if (vouched) return vouched;
  if (trustProxyHops > 0) {
    const forwarded = (c.req.header("x-forwarded-for") ?? "")
      .split(",")
      .map((part) => part.trim())
      .filter(Boolean);
    const entry = forwarded[forwarded.length - trustProxyHops];
    if (entry) return entry;
  }
  try {
    return getConnInfo(c).remote.address ?? "unknown";
  } catch {
    return "unknown"; // no socket (app.request in tests)
  }
}

/**
 * The limiter key of a client address: an IPv4 address as it is, an IPv6 address by its /64 (one
 * host is given a /64 and can send from any address in it), an IPv4-mapped IPv6 address as IPv4.
 */
export const clientKey = (ip: string): string => `ip:${clientNetwork(ip)}`;

/** `a.b.c.d` for IPv4 (mapped or not), `h:h:h:h::/64` for IPv6, the input for anything else. */
export function clientNetwork(address: string): string {
  if (!address.includes(":")) return address; // IPv4 (the hot path: no parsing)
  let ip = address.trim().toLowerCase();
  if (ip.startsWith("[")) ip = ip.slice(1, ip.indexOf("]") === -1 ? undefined : ip.indexOf("]")); // [v6] or [v6]:port
  const zone = ip.indexOf("%");
  if (zone !== -1) ip = ip.slice(0, zone);
  if (!isIPv6(ip)) return address;
  const groups = expandIpv6(ip);
  if (!groups) return address;
  if (groups.slice(0, 5).every((g) => g === "0") && groups[5] === "ffff") {
    const [high, low] = [Number.parseInt(groups[6]!, 16), Number.parseInt(groups[7]!, 16)];
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`; // IPv4-mapped: the IPv4 client
  }
  return `${groups.slice(0, 4).join(":")}::/64`;
}

/** The eight groups of an IPv6 address (no leading zeros), or undefined. */
function expandIpv6(ip: string): string[] | undefined {
  let text = ip;
  // A trailing dotted IPv4 part is two groups.
  const dotted = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const head = halves[0] ? halves[0].split(":") : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  return groups.every((g) => /^[0-9a-f]{1,4}$/.test(g)) ? groups.map((g) => Number.parseInt(g, 16).toString(16)) : undefined;
}

/** The limiter key of a session: a hash of its bearer token (the token itself never reaches Redis or logs), or undefined. */
export function sessionKey(c: Context): string | undefined {
  const header = c.req.header("authorization");
  if (!header) return undefined;
  const token = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
  return token ? `session:${hashToken(token)}` : undefined;
}

/**
 * Sets a response header, replacing what it held: on Node's response where there is one (kept on every
 * answer made after it, a 429 from onError included), else on the context.
 */
function setResponseHeader(c: Context, name: string, value: string): void {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (outgoing && typeof outgoing.setHeader === "function" && !outgoing.headersSent) outgoing.setHeader(name, value);
  else if (c.finalized) {
    // On the answer itself: c.header would copy the Response each time. An answer with immutable headers (a fetch's) is copied once.
    try {
      c.res.headers.set(name, value);
    } catch {
      c.header(name, value);
    }
  } else c.header(name, value);
}

/** What one bucket has left after a request: points, and the end of its window (epoch ms). */
export type Quota = { left: number; spare: number; until: number };

/** A limit a request met: its policy, and where its state is read when the answer's headers are written. */
type Met = { policy: string; item: string; bucket: Bucket; key: string; quota?: Quota; refusedSeconds?: number };

/**
 * The limits each request met, by policy name: the app's, a route's stricter one, the session's. Each
 * name is one entry, so the headers name each policy once, however many limiters and charges a request
 * met; the headers are written from it when the answer is made, after whatever the route charged.
 */
const MET = "rateLimitsMet";
/** The limits the request met, by item name: a variable of its context (Hono's per-request store). */
const metLimitsOf = (c: Context): Map<string, Met> | undefined => c.get(MET as never) as Map<string, Met> | undefined;

function meet(c: Context, met: Met): Met {
  let limits = metLimitsOf(c);
  if (!limits) c.set(MET as never, (limits = new Map()) as never);
  const known = limits.get(met.item);
  if (known && known.policy === met.policy && known.key === met.key) return known; // the same limit met again (a route calling the app's limiter)
  limits.set(met.item, met);
  return met;
}

/**
 * RateLimit-Policy and RateLimit of everything the request met. `r` is read at the end, from the
 * client's newest quota in this process: it has fallen by all the request cost (its own point, the
 * answer's size charged by the route, the /v1 calls an MCP tool made as the same client).
 */
function writeHeaders(c: Context): void {
  const limits = metLimitsOf(c);
  if (!limits) return;
  const now = Date.now();
  const policies: string[] = [];
  const states: string[] = [];
  for (const met of limits.values()) {
    policies.push(met.policy);
    if (met.refusedSeconds !== undefined) states.push(`"${met.item}";r=0;t=${met.refusedSeconds}`);
    else {
      const quota = met.bucket.leases.latest(met.key) ?? met.quota;
      if (quota) states.push(`"${met.item}";r=${Math.max(0, quota.spare + quota.left)};t=${Math.max(0, Math.ceil((quota.until - now) / 1000))}`);
    }
  }
  setResponseHeader(c, "RateLimit-Policy", policies.join(", "));
  if (states.length > 0) setResponseHeader(c, "RateLimit", states.join(", "));
}

type Bucket = { item: string; policy: string; leases: LeasedLimiter; limiter: RateLimiterRedis };

/**
 * The limiter, and `charge(c, points)`: takes `points` more from the client's budget for a request whose
 * answer costs far more than the request (a flat count would let a small request buy a large answer);
 * throws 429 RATE_LIMITED when the client has not that many left. The answer's RateLimit header shows
 * the budget after the charge.
 */
export type RateLimitMiddleware = MiddlewareHandler & { charge(c: Context, points: number): Promise<void> };

export function rateLimit(parameters: RateLimitParameters): RateLimitMiddleware {
  const options = { ...DEFAULT_RATE_LIMIT, ...withoutUndefined(parameters) };
  const name = parameters.name ?? "client";
  const policy = (item: string) => `"${item}";q=${options.points};w=${options.duration}`;
  const bucket = (keyPrefix: string, item: string): Bucket => {
    const limiter = new RateLimiterRedis({
      storeClient: parameters.redis,
      keyPrefix,
      points: options.points,
      duration: options.duration,
      rejectIfRedisNotReady: true, // go to the insurance limiter at once, never queue behind a dead Redis
      insuranceLimiter: new RateLimiterMemory({ keyPrefix, points: options.points, duration: options.duration }),
    });
    const lease = Math.min(MAX_LEASE, Math.max(1, Math.floor(options.points / LEASE_DIVISOR)));
    return { item, policy: policy(item), limiter, leases: leasedLimiter(limiter, lease) };
  };
  const client = bucket(options.keyPrefix, name);
  // Sessions count in the same keyspace under their own key (`session:<hash>`).
  const session = parameters.perSession ? bucket(options.keyPrefix, "session") : undefined;

  /** Marks `met` refused (its headers say r=0 until the window ends) and answers the 429, or undefined when the limiter itself failed. */
  const refused = (met: Met, rejection: unknown): ApiError | undefined => {
    if (!(rejection instanceof RateLimiterRes)) {
      // Both stores failed (should not happen with the memory insurance): answer rather than refuse.
      parameters.logger?.warn({ err: rejection }, "rate limiter failed; request let through");
      return undefined;
    }
    const seconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
    met.refusedSeconds = seconds;
    return new ApiError("RATE_LIMITED", `Too many requests: retry after ${seconds} s`, undefined, { retryAfterSeconds: seconds });
  };

  // The client's bucket, then the session's (a client over its limit spends nothing of the session's).
  const slow = async (c: Context, next: Next, clientMet: Met, sessionId: string | undefined, first: Quota | Promise<Quota>) => {
    const takes: [Met, () => Quota | Promise<Quota>][] = [[clientMet, () => first]];
    if (sessionId && session)
      takes.push([meet(c, { policy: session.policy, item: session.item, bucket: session, key: sessionId }), () => session.leases.take(sessionId)]);
    for (const [met, take] of takes) {
      try {
        met.quota = await take();
      } catch (rejection) {
        const error = refused(met, rejection);
        if (error) {
          writeHeaders(c);
          throw error;
        }
      }
    }
    await next();
    writeHeaders(c);
  };

  const keyOf = (c: Context) => (parameters.key ? parameters.key(c) : clientKey(clientIp(c, options.trustProxyHops)));
  const charge = async (c: Context, points: number): Promise<void> => {
    if (points <= 0) return;
    const key = keyOf(c);
    const met = meet(c, { policy: client.policy, item: client.item, bucket: client, key });
    try {
      met.quota = await client.leases.spend(key, Math.min(points, options.points));
    } catch (rejection) {
      const error = refused(met, rejection);
      if (error) throw error;
    }
  };

  const middleware: MiddlewareHandler = (c, next) => {
    if (c.req.method === "OPTIONS") return next(); // CORS preflights cost nothing
    const sessionId = session ? sessionKey(c) : undefined;
    const key = keyOf(c);
    const met = meet(c, { policy: client.policy, item: client.item, bucket: client, key });
    const taken = client.leases.take(key);
    // Most requests: a point from the client's lease, synchronously; the headers once the answer is made.
    if (sessionId === undefined && !(taken instanceof Promise)) {
      met.quota = taken;
      return next().then(() => writeHeaders(c));
    }
    return slow(c, next, met, sessionId, taken);
  };
  return Object.assign(middleware, { charge });
}

/** Answer bytes one request point buys; a larger answer is charged a point per further unit. */
export const COST_UNIT_BYTES = 16 * 1024;

/** The extra points of an answer of `bytes` (beyond the request's own point). */
export const extraPointsFor = (bytes: number): number => Math.max(0, Math.ceil(bytes / COST_UNIT_BYTES) - 1);

/** A lease is this fraction of the limit, and at most MAX_LEASE points. */
const LEASE_DIVISOR = 10;
const MAX_LEASE = 50;
/** Clients whose lease one process remembers (least recently used go first: they lease again). */
const MAX_LEASES = 100_000;

/**
 * A limiter that takes points from Redis in leases of `size`:
 * - `take(key)`: one point, from the client's lease in memory, or a new lease (one at a time per client:
 *   concurrent requests wait for it rather than each taking one); near the limit (a whole lease refused)
 *   the lease is given back and the request takes its own point. Synchronous when the point came from the
 *   lease, else a promise that rejects with the limiter's RateLimiterRes when over the limit.
 * - `spend(key, points)`: more points for one request, from the lease first and the rest from Redis; over
 *   the limit it rejects and the client's quota is spent (Redis has counted the points).
 * - `latest(key)`: the client's newest quota in this process (`spare + left` is what it has left).
 */
export type LeasedLimiter = {
  take(key: string): Quota | Promise<Quota>;
  spend(key: string, points: number): Promise<Quota>;
  latest(key: string): Quota | undefined;
};

export function leasedLimiter(limiter: RateLimiterRedis, size: number): LeasedLimiter {
  const leases = new LRUCache<string, Quota>({ max: MAX_LEASES });
  const single = async (key: string): Promise<Quota> => {
    const res = await limiter.consume(key, 1);
    const quota = { left: 0, spare: res.remainingPoints, until: Date.now() + res.msBeforeNext };
    leases.set(key, quota);
    return quota;
  };
  const leasing = new Map<string, Promise<void>>();
  const fromLease = (key: string): Quota | undefined => {
    const lease = leases.get(key);
    if (!lease || lease.left <= 0 || Date.now() >= lease.until) return undefined;
    lease.left--;
    return lease;
  };
  const takeLease = async (key: string): Promise<Quota> => {
    for (;;) {
      const inFlight = leasing.get(key);
      if (!inFlight) break;
      await inFlight; // never rejects
      const lease = fromLease(key);
      if (lease) return lease;
    }
    let done!: () => void;
    leasing.set(key, new Promise<void>((resolve) => (done = resolve)));
    try {
      const res = await limiter.consume(key, size);
      const lease = { left: size - 1, spare: res.remainingPoints, until: Date.now() + res.msBeforeNext }; // one is this request's
      leases.set(key, lease);
      return lease;
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      // Fewer than a lease left in this window: give the lease back, take one point.
      await limiter.reward(key, size).catch(() => {});
      return await single(key);
    } finally {
      leasing.delete(key);
      done();
    }
  };
  const spend = async (key: string, points: number): Promise<Quota> => {
    const held = leases.get(key);
    const lease = held && Date.now() < held.until ? held : undefined;
    const fromHeld = Math.min(points, Math.max(0, lease?.left ?? 0));
    if (lease) lease.left -= fromHeld; // before any await: a concurrent request cannot spend these too
    if (lease && fromHeld === points) return lease;
    try {
      const res = await limiter.consume(key, points - fromHeld);
      const quota = lease ?? { left: 0, spare: 0, until: 0 };
      quota.spare = res.remainingPoints;
      quota.until = Date.now() + res.msBeforeNext;
      if (!lease) leases.set(key, quota);
      return quota;
    } catch (rejection) {
      // Over the limit: Redis counted the points, so nothing is left this window, in the lease either.
      if (rejection instanceof RateLimiterRes) leases.set(key, { left: 0, spare: 0, until: Date.now() + rejection.msBeforeNext });
      throw rejection;
    }
  };
  return {
    take: size <= 1 ? single : (key) => fromLease(key) ?? takeLease(key),
    spend,
    latest: (key) => leases.get(key),
  };
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
