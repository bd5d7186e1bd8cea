// Keys held once in Redis: a payment's claim (one payment buys one run) and a client's turn (one basket
// plan at a time). Both throw when Redis cannot answer; what an outage means is the caller's rule.
import type { Redis } from "ioredis";

/** Takes `key` for `seconds` unless someone holds it: true when this call took it. */
export const claim = async (redis: Redis, key: string, seconds: number): Promise<boolean> => (await redis.set(key, "1", "EX", seconds, "NX")) === "OK";

/** Gives a claim back (its run did not happen); an outage leaves it to expire. */
export const releaseClaim = (redis: Redis, key: string): Promise<void> =>
  redis.del(key).then(
    () => undefined,
    () => undefined,
  );

const RELEASE_IF_OURS = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";

/** Holds `key` for `ms` unless someone holds it: a release that frees it only while it is still this turn's, or null. */
export async function takeTurn(redis: Redis, key: string, ms: number): Promise<(() => Promise<void>) | null> {
  const token = `${Date.now()}-${Math.random()}`;
  if ((await redis.set(key, token, "PX", ms, "NX")) !== "OK") return null;
  return () =>
    redis.eval(RELEASE_IF_OURS, 1, key, token).then(
      () => undefined,
      () => undefined,
    );
}
