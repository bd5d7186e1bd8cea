// The API's Redis connection. A dead Redis must fail fast, never hang a request:
// - enableOfflineQueue false: a command while disconnected throws at once (BullMQ producers too:
//   `Queue.add` otherwise hangs; answer 503);
// - maxRetriesPerRequest 1: a command caught by a dropped connection fails after one retry;
// - reconnects in the background with a capped back-off, for as long as the process lives.
// Workers need `maxRetriesPerRequest: null` (BullMQ), so they make their own connections.
import { Redis, type RedisOptions } from "ioredis";
import type { Logger } from "./logger.js";

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
  logger?: Logger;
  /** Extra ioredis options (e.g. lazyConnect in tests). */
  options?: RedisOptions;
};

export function createRedis({ url, logger, options }: CreateRedisParameters): Redis {
  const redis = new Redis(url, { ...FAIL_FAST_REDIS_OPTIONS, ...options });
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
