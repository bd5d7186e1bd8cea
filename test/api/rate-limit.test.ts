// Rate limits live in Redis, so two API instances on the same prefix share them; when Redis is
// down the in-memory insurance limiter keeps limiting and reads keep answering.
import type { Redis } from "ioredis";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedis, waitForRedis } from "../../api/redis.js";
import { agentRouteGroups } from "../../api/routes/index.js";
import type { Database } from "../../src/db/api-schema.js";
import { createSignRequest } from "../../src/db/sign-requests.js";
import {
  connectRedis,
  createTestDatabase,
  DEAD_REDIS_URL,
  deleteKeys,
  json,
  migratedDb,
  randomPrefix,
  testApp,
  type TestDatabase,
} from "./support.js";
import { startRedisServer } from "../helpers/redis-server.js";
import { testRoutes } from "./test-routes.js";

const routes = { agentRoutes: [...agentRouteGroups, testRoutes()] };
const OWNER_A = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const OWNER_B = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";

let database: TestDatabase;
let db: Kysely<Database>;
let redisA: Redis;
let redisB: Redis;
let deadRedis: Redis;
const prefix = randomPrefix();

beforeAll(async () => {
  database = await createTestDatabase();
  db = await migratedDb(database);
  redisA = await connectRedis();
  redisB = await connectRedis();
  deadRedis = createRedis({ url: DEAD_REDIS_URL });
});

afterAll(async () => {
  await deleteKeys(redisA, prefix);
  deadRedis?.disconnect();
  await Promise.allSettled([db?.destroy(), redisA?.quit(), redisB?.quit()]);
  await database?.drop();
});

const from = (ip: string, extra: Record<string, string> = {}) => ({ headers: { "x-forwarded-for": ip, ...extra } });

describe("rate limit", () => {
  it("answers 429 RATE_LIMITED with Retry-After, counted across two instances on one prefix", async () => {
    const limit = { points: 3, duration: 60, keyPrefix: `${prefix}:rl:shared` };
    const one = testApp({ db, redis: redisA, rateLimit: limit, options: routes }).app;
    const two = testApp({ db, redis: redisB, rateLimit: limit, options: routes }).app;

    expect((await one.request("/v1/agent/test/ping", from("203.0.113.7"))).status).toBe(200);
    expect((await two.request("/v1/agent/test/ping", from("203.0.113.7"))).status).toBe(200);
    expect((await one.request("/v1/agent/test/ping", from("203.0.113.7"))).status).toBe(200);
    const limited = await two.request("/v1/agent/test/ping", from("203.0.113.7", { origin: "https://agent.example" }));
    expect(limited.status).toBe(429);
    // A browser agent can read the refusal and its Retry-After.
    expect(limited.headers.get("access-control-allow-origin")).toBe("*");
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    const body = await json(limited);
    expect(body.code).toBe("RATE_LIMITED");
    expect(body.error).toBe(`Too many requests: retry after ${retryAfter} s`);

    // Another client is not affected; the probes outside /v1 are never limited.
    expect((await one.request("/v1/agent/test/ping", from("198.51.100.1"))).status).toBe(200);
    expect((await one.request("/health", from("203.0.113.7"))).status).toBe(200);
    expect(await redisA.exists(`${prefix}:rl:shared:ip:203.0.113.7`)).toBe(1);
  });

  it("keys by the owner where the request names one (path or JSON body)", async () => {
    const { app } = testApp({ db, redis: redisA, rateLimit: { points: 1, duration: 60, keyPrefix: `${prefix}:rl:owner` }, options: routes });
    const sameIp = from("203.0.113.9");
    expect((await app.request(`/v1/agent/test/accounts/${OWNER_A}`, sameIp)).status).toBe(200);
    expect((await app.request(`/v1/agent/test/accounts/${OWNER_B}`, sameIp)).status).toBe(200);
    expect((await app.request(`/v1/agent/test/accounts/${OWNER_A.toLowerCase()}`, sameIp)).status).toBe(429);

    const post = (owner: string) =>
      app.request("/v1/agent/test/echo", {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": "203.0.113.10" },
        body: JSON.stringify({ owner, amount: "1" }),
      });
    // OWNER_B already spent its point on the path route: the body's owner is the same client.
    expect((await post(OWNER_B)).status).toBe(429);
    const third = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
    const first = await post(third);
    expect(first.status).toBe(200);
    expect((await json(first)).data.owner).toBe(third); // the validator still reads the body
  });

  it("keeps limiting in memory and keeps answering reads when Redis is down", async () => {
    const { app, clock } = testApp({
      db,
      redis: deadRedis,
      rateLimit: { points: 3, duration: 60, keyPrefix: `${prefix}:rl:dead` },
      options: routes,
    });
    const stored = await createSignRequest(db, {
      owner: OWNER_A,
      kind: "swap",
      bundle: { walletSendCalls: { version: "2.0.0", chainId: "0x1237", from: OWNER_A, atomicRequired: false, calls: [] } },
      now: clock.now(),
    });
    const started = performance.now();
    const read = await app.request(`/v1/agent/sign-requests/${stored.id}`, from("203.0.113.20"));
    expect(read.status).toBe(200);
    expect((await json(read)).data.id).toBe(stored.id);
    expect((await app.request("/v1/agent/test/ping", from("203.0.113.20"))).status).toBe(200);
    expect((await app.request("/v1/agent/test/ping", from("203.0.113.20"))).status).toBe(200);
    const limited = await app.request("/v1/agent/test/ping", from("203.0.113.20"));
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(performance.now() - started).toBeLessThan(2000); // no waiting on the dead Redis
    expect((await app.request("/v1/agent/test/ping", from("203.0.113.21"))).status).toBe(200);
  });

  it("Redis stopped: reads answer 200, limited in memory; started again: limits are counted in Redis again, across instances", async () => {
    const server = await startRedisServer(); // a Redis of this test's own, to stop and start
    const clients = [createRedis({ url: server.url }), createRedis({ url: server.url })] as const;
    try {
      await Promise.all(clients.map((c) => waitForRedis(c, 5000)));
      const limit = { points: 3, duration: 60, keyPrefix: `${prefix}:rl:restart` };
      const one = testApp({ db, redis: clients[0], rateLimit: limit, options: routes }).app;
      const two = testApp({ db, redis: clients[1], rateLimit: limit, options: routes }).app;
      const stored = await createSignRequest(db, {
        owner: OWNER_B,
        kind: "swap",
        bundle: { walletSendCalls: { version: "2.0.0", chainId: "0x1237", from: OWNER_B, atomicRequired: false, calls: [] } },
        now: new Date(),
      });

      await server.kill();
      // Down: a read from Postgres answers, and each instance keeps limiting on its own, in memory.
      const read = await one.request(`/v1/agent/sign-requests/${stored.id}`, from("203.0.113.30"));
      expect(read.status).toBe(200);
      expect((await json(read)).data.id).toBe(stored.id);
      for (let i = 0; i < 2; i++) expect((await one.request("/v1/agent/test/ping", from("203.0.113.30"))).status).toBe(200);
      expect((await one.request("/v1/agent/test/ping", from("203.0.113.30"))).status).toBe(429);
      for (let i = 0; i < 3; i++) expect((await two.request("/v1/agent/test/ping", from("203.0.113.30"))).status).toBe(200);

      await server.start(); // the same port, empty
      await Promise.all(clients.map((c) => waitForRedis(c, 15_000)));
      // Back: a client's requests are counted in Redis again, once across both instances (3 in all, not 3 each).
      const ip = "203.0.113.31";
      const statuses: number[] = [];
      for (const app of [one, two, one, two, one]) statuses.push((await app.request("/v1/agent/test/ping", from(ip))).status);
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      expect(await clients[0].keys(`${prefix}:rl:restart*`)).toEqual([`${prefix}:rl:restart:ip:${ip}`]);
    } finally {
      for (const c of clients) c.disconnect();
      await server.kill();
    }
  });

  it("takes points from Redis a lease (a tenth of the limit) at a time: exact on one instance, never above the limit on two", async () => {
    const limit = { points: 30, duration: 60, keyPrefix: `${prefix}:rl:lease` };
    const one = testApp({ db, redis: redisA, rateLimit: limit, options: routes }).app;
    const two = testApp({ db, redis: redisB, rateLimit: limit, options: routes }).app;
    const ping = async (app: typeof one, ip: string) => (await app.request("/v1/agent/test/ping", from(ip))).status;

    // One instance: 4 requests took two leases of 3 points from Redis; 30 pass, the 31st is refused.
    for (let i = 0; i < 4; i++) expect(await ping(one, "203.0.113.30")).toBe(200);
    expect(await redisA.get(`${limit.keyPrefix}:ip:203.0.113.30`)).toBe("6");
    for (let i = 4; i < 30; i++) expect(await ping(one, "203.0.113.30")).toBe(200);
    expect(await ping(one, "203.0.113.30")).toBe(429);

    // A burst of concurrent requests from a fresh client: they share leases, so all 30 pass.
    const burst = await Promise.all(Array.from({ length: 30 }, () => ping(one, "203.0.113.32")));
    expect(burst.filter((status) => status === 200)).toHaveLength(30);
    expect(await ping(one, "203.0.113.32")).toBe(429);

    // Two instances, turn about: never more than 30 through, and at most a lease less (2 points) short.
    let passed = 0;
    for (let i = 0; i < 40; i++) if ((await ping(i % 2 ? two : one, "203.0.113.31")) === 200) passed++;
    expect(passed).toBeLessThanOrEqual(30);
    expect(passed).toBeGreaterThanOrEqual(28);
  });
});
