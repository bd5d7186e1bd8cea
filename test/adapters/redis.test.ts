// Connections through Sentinel (adapters/redis.ts): the options ioredis is given. A real failover is
// shown by test/e2e/past-one-machine.test.ts.
import { describe, expect, it } from "vitest";
import { newRedis, redisOptions } from "../../adapters/redis.js";

const sentinel = { name: "agents", sentinels: [{ host: "s1", port: 26379 }] };

describe("redisOptions", () => {
  it("without Sentinel: only the options given (REDIS_URL is the server)", () => {
    expect(redisOptions("redis://:pw@r:6380/2", undefined, { maxRetriesPerRequest: 1 })).toEqual({ maxRetriesPerRequest: 1 });
  });

  it("with Sentinel: the sentinels and the master's name, and REDIS_URL's user, password and database", () => {
    expect(redisOptions("redis://app:p%40ss@ignored:6379/3", sentinel, { maxRetriesPerRequest: null })).toEqual({
      sentinels: [{ host: "s1", port: 26379 }],
      name: "agents",
      username: "app",
      password: "p@ss",
      db: 3,
      maxRetriesPerRequest: null,
    });
    expect(redisOptions("redis://127.0.0.1:6379", sentinel)).toEqual({ sentinels: sentinel.sentinels, name: "agents" });
  });

  it("newRedis asks the sentinels for the master when given them", () => {
    const viaSentinel = newRedis("redis://:pw@127.0.0.1:6379", sentinel, { lazyConnect: true });
    const direct = newRedis("redis://:pw@127.0.0.1:6390", undefined, { lazyConnect: true });
    try {
      expect(viaSentinel.options).toMatchObject({ sentinels: sentinel.sentinels, name: "agents", password: "pw" });
      expect(direct.options).toMatchObject({ port: 6390, password: "pw" });
      expect(direct.options.sentinels).toBeFalsy();
    } finally {
      viaSentinel.disconnect();
      direct.disconnect();
    }
  });
});
