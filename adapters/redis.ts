// The API's Redis connection. A dead Redis must fail fast, never hang a request:
// - enableOfflineQueue false: a command while disconnected throws at once (BullMQ producers too:
//   `Queue.add` otherwise hangs; answer 503);
// - maxRetriesPerRequest 1: a command caught by a dropped connection fails after one retry;
// - reconnects in the background with a capped back-off, for as long as the process lives.
// Workers need `maxRetriesPerRequest: null` (BullMQ), so they make their own connections.
//
// With Sentinel (REDIS_SENTINELS, REDIS_SENTINEL_NAME) every connection asks the sentinels where the
// master is, and asks again after a failover (ioredis does); REDIS_URL then gives only the password,
// user and database number.
import { Redis, type RedisOptions } from "ioredis";
import type { Logger } from "./logger.js";

/** Where the master is found when Redis runs under Sentinel. */
export type RedisSentinel = { sentinels: { host: string; port: number }[]; name: string };

/** The ioredis options of a connection to `url`, or to the master `sentinel` names (with `url`'s credentials and database). */
export function redisOptions(url: string, sentinel: RedisSentinel | undefined, options: RedisOptions = {}): RedisOptions {
  if (!sentinel) return { ...options };
  const u = new URL(url);
  const db = Number(u.pathname.slice(1) || 0);
  return {
    sentinels: sentinel.sentinels,
    name: sentinel.name,
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(Number.isInteger(db) && db > 0 ? { db } : {}),
    ...options,
  };
}

/** A connection to `url`, or through `sentinel` to its master. */
export function newRedis(url: string, sentinel: RedisSentinel | undefined, options: RedisOptions = {}): Redis {
  return sentinel ? new Redis(redisOptions(url, sentinel, options)) : new Redis(url, options);
}

export const FAIL_FAST_REDIS_OPTIONS = {
  // Commands of one turn of the event loop go out in one write (every request's rate-limit script).
  enableAutoPipelining: true,
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  connectTimeout: 2000,
  retryStrategy: (attempt: number) => Math.min(100 * 2 ** Math.min(attempt, 5), 2000),
} as const satisfies RedisOptions;

export type CreateRedisParameters = {
  url: string;
  /** Redis under Sentinel (REDIS_SENTINELS): the master is asked of these. */
  sentinel?: RedisSentinel;
  logger?: Logger;
  /** Extra ioredis options (e.g. lazyConnect in tests). */
  options?: RedisOptions;
};

export function createRedis({ url, sentinel, logger, options }: CreateRedisParameters): Redis {
  const redis = newRedis(url, sentinel, { ...FAIL_FAST_REDIS_OPTIONS, ...options });
  // Without a listener ioredis prints every failed reconnect; log only the changes of state.
  let down = false;
  redis.on("error", (error: Error) => {
    if (down) return;
    down = true;
    logger?.warn({ err: { message: error.message, code: (error as { code?: unknown }).code } }, "redis unavailable");
  });
  redis.on("ready", () => {
    if (down) logger?.info({}, "redis available again");
    down = false;
  });
  return redis;
}

/** Resolves once `redis` is ready; rejects after `timeoutMs` with the last connection error. */
export function waitForRedis(redis: Redis, timeoutMs = 3000): Promise<void> {
  if (redis.status === "ready") return Promise.resolve();
  return new Promise((resolve, reject) => {
    let lastError: Error | undefined;
    const onError = (error: Error) => (lastError = error);
    const cleanup = () => {
      clearTimeout(timer);
      redis.off("ready", onReady);
      redis.off("error", onError);
    };
    const onReady = () => {
      cleanup();
      resolve();
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(lastError ?? new Error(`Redis not ready after ${timeoutMs} ms`));
    }, timeoutMs);
    redis.on("ready", onReady);
    redis.on("error", onError);
    if (redis.status === "wait") redis.connect().catch(onError);
  });
}
