// Rate limits live in Redis, so two API instances on the same prefix share them; when Redis is
// down the in-memory insurance limiter keeps limiting and reads keep answering.
import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
import { serve } from "@hono/node-server";
import type { Redis } from "ioredis";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedis, waitForRedis } from "../../adapters/redis.js";
import { clientKey, clientNetwork, COST_UNIT_BYTES } from "../../api/middleware/rate-limit.js";
import { agentRouteGroups } from "../../api/routes/index.js";
import type { Database } from "../../adapters/db/api-schema.js";
import { createSignRequest } from "../../adapters/db/sign-requests.js";
import { connectRedis, createTestDatabase, DEAD_REDIS_URL, deleteKeys, json, migratedDb, randomPrefix, testApp, type TestDatabase } from "./support.js";
import { startRedisServer } from "../helpers/redis-server.js";
import { closeLoopbackClients, requestFrom } from "../helpers/loopback-client.js";
import { freePort } from "../helpers/stack.js";
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
  closeLoopbackClients();
  await deleteKeys(redisA, prefix);
  deadRedis?.disconnect();
  await Promise.allSettled([db?.destroy(), redisA?.quit(), redisB?.quit()]);
  await database?.drop();
});

const from = (ip: string, extra: Record<string, string> = {}) => ({ headers: { "x-forwarded-for": ip, ...extra } });

describe("the client key (issue 32: IPv6 by its /64)", () => {
  it("keys IPv4 by its address, IPv6 by its /64 in any spelling, IPv4-mapped IPv6 as IPv4", () => {
    expect(clientKey("203.0.113.7")).toBe("ip:203.0.113.7");
    expect(clientNetwork("2001:db8:1:2::a")).toBe("2001:db8:1:2::/64");
    expect(clientNetwork("2001:0DB8:0001:0002:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(clientNetwork("[2001:db8:1:2:3:4:5:6]:443")).toBe("2001:db8:1:2::/64");
    expect(clientNetwork("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(clientNetwork("2001:db8::")).toBe("2001:db8:0:0::/64");
    expect(clientNetwork("::1")).toBe("0:0:0:0::/64");
    expect(clientNetwork("2001:db8:1:3::a")).not.toBe(clientNetwork("2001:db8:1:2::a"));
    expect(clientNetwork("::ffff:127.0.0.9")).toBe("127.0.0.9");
    expect(clientNetwork("::ffff:7f00:9")).toBe("127.0.0.9");
    expect(clientNetwork("64:ff9b::192.0.2.33")).toBe("64:ff9b:0:0::/64");
    // Not an address: kept as it is (its own bucket), never a crash.
    for (const junk of ["unknown", "1:2:3", "::ffff:zz", "1.2.3.4:5678", ":::"]) expect(clientNetwork(junk)).toBe(junk);
  });

  it("two IPv6 addresses of one /64 behind a trusted proxy share one budget; another /64 has its own", async () => {
    const { app } = testApp({ db, redis: redisA, rateLimit: { points: 3, duration: 60, keyPrefix: `${prefix}:rl:v6`, trustProxyHops: 1 }, options: routes });
    const seen: number[] = [];
    for (const ip of ["2001:db8:5:6::1", "2001:db8:5:6:aaaa::2", "2001:db8:5:6::1", "2001:db8:5:6:ffff:ffff:ffff:fffe"])
      seen.push((await app.request("/v1/agent/test/ping", from(`198.51.100.200, ${ip}`))).status);
    expect(seen).toEqual([200, 200, 200, 429]);
    expect((await app.request("/v1/agent/test/ping", from("2001:db8:5:7::1"))).status).toBe(200);
    expect(await redisA.exists(`${prefix}:rl:v6:ip:2001:db8:5:6::/64`)).toBe(1);
  });
});

describe("every route counts (issue 32)", () => {
  it("tools/list is answered from cached bytes and charged a point per 16 KiB of answer; / and /llms.txt are limited", async () => {
    const { app } = testApp({ db, redis: redisA, rateLimit: { points: 30, duration: 60, keyPrefix: `${prefix}:rl:cost` } });
    const list = (id: number, ip: string) =>
      app.request("/mcp", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "x-forwarded-for": ip },
        body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list" }),
      });
    const first = await list(7, "203.0.113.60");
    expect(first.status).toBe(200);
    const text = await first.text();
    const body = JSON.parse(text);
    expect(body).toMatchObject({ jsonrpc: "2.0", id: 7 });
    expect(body.result.tools.length).toBeGreaterThan(10);
    const cost = Math.ceil(Buffer.byteLength(text) / COST_UNIT_BYTES);
    expect(cost).toBeGreaterThan(2);
    const statuses = [200];
    for (let i = 0; i < 10; i++) statuses.push((await list(i, "203.0.113.60")).status);
    expect(statuses.filter((s) => s === 200).length).toBe(Math.floor(30 / cost));
    // Another client has its own budget.
    expect((await list(1, "203.0.113.61")).status).toBe(200);
    for (const path of ["/", "/llms.txt"]) {
      const answer = await app.request(path, from("203.0.113.62"));
      expect(answer.status).toBe(200);
      expect(answer.headers.get("ratelimit-policy")).toContain("q=30");
    }
  });
});

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

    // Another client is not affected; the probes (/health, /ready) are never limited.
    expect((await one.request("/v1/agent/test/ping", from("198.51.100.1"))).status).toBe(200);
    expect((await one.request("/health", from("203.0.113.7"))).status).toBe(200);
    expect(await redisA.exists(`${prefix}:rl:shared:ip:203.0.113.7`)).toBe(1);
  });

  it("keys by the client, never by the owner a request names: a fresh owner each time is still limited, a victim is not locked out", async () => {
    const { app } = testApp({ db, redis: redisA, rateLimit: { points: 3, duration: 60, keyPrefix: `${prefix}:rl:owner` }, options: routes });
    const fresh = () => `0x${randomBytes(20).toString("hex")}`;
    const attacker = from("203.0.113.9");
    // Naming a fresh owner on each request spends the attacker's own budget.
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await app.request(`/v1/agent/test/accounts/${fresh()}`, attacker)).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    // Same in a JSON body.
    const post = (owner: string, ip: string) =>
      app.request("/v1/agent/test/echo", {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": ip },
        body: JSON.stringify({ owner, amount: "1" }),
      });
    expect((await post(fresh(), "203.0.113.9")).status).toBe(429);
    // The attacker hammered the victim's address too: the victim (its own address) still reads it.
    for (let i = 0; i < 5; i++) await app.request(`/v1/agent/test/accounts/${OWNER_A}`, attacker);
    const victim = await app.request(`/v1/agent/test/accounts/${OWNER_A}`, from("198.51.100.77"));
    expect(victim.status).toBe(200);
    const first = await post(OWNER_B, "198.51.100.77");
    expect(first.status).toBe(200);
    expect((await json(first)).data.owner).toBe(OWNER_B); // the validator still reads the body
    expect(await redisA.keys(`${prefix}:rl:owner:owner:*`)).toEqual([]);
  });

  it("limits a session token per session across addresses, and per address as well", async () => {
    const { app } = testApp({ db, redis: redisA, rateLimit: { points: 3, duration: 60, keyPrefix: `${prefix}:rl:session` }, options: routes });
    const bearer = { authorization: "Bearer session-token-of-one-agent" };
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await app.request("/v1/agent/test/ping", from(`192.0.2.${i + 1}`, bearer))).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    const refused = await app.request("/v1/agent/test/ping", from("192.0.2.50", bearer));
    // Both policies it met, each with its state: the fresh address has 2 left, the session none.
    expect(refused.headers.get("ratelimit")).toMatch(/^"client";r=2;t=\d+, "session";r=0;t=\d+$/);
    // Another token from a fresh address passes; the token never reaches Redis in clear.
    expect((await app.request("/v1/agent/test/ping", from("192.0.2.60", { authorization: "Bearer another-token" }))).status).toBe(200);
    const keys = await redisA.keys(`${prefix}:rl:session:*`);
    expect(keys.some((k) => k.includes("session-token-of-one-agent"))).toBe(false);
    expect(keys.filter((k) => k.startsWith(`${prefix}:rl:session:session:`))).toHaveLength(2);
    // The address's own limit still applies to a request with a session.
    const ip = from("192.0.2.70");
    for (let i = 0; i < 3; i++) expect((await app.request("/v1/agent/test/ping", ip)).status).toBe(200);
    expect((await app.request("/v1/agent/test/ping", from("192.0.2.70", { authorization: "Bearer third-token" }))).status).toBe(429);
  });

  it("sends RateLimit-Policy and RateLimit on every limited answer, 2xx and 429", async () => {
    const { app } = testApp({ db, redis: redisA, rateLimit: { points: 20, duration: 60, keyPrefix: `${prefix}:rl:headers` }, options: routes });
    const ok = await app.request("/v1/agent/test/ping", from("203.0.113.40"));
    expect(ok.status).toBe(200);
    expect(ok.headers.get("ratelimit-policy")).toBe('"client";q=20;w=60');
    const state = /^"client";r=(\d+);t=(\d+)$/.exec(ok.headers.get("ratelimit") ?? "");
    expect(state).not.toBeNull();
    expect(Number(state![1])).toBe(19);
    expect(Number(state![2])).toBeGreaterThan(0);
    expect(Number(state![2])).toBeLessThanOrEqual(60);
    const second = await app.request("/v1/agent/test/ping", from("203.0.113.40"));
    expect(second.headers.get("ratelimit")).toMatch(/^"client";r=18;t=\d+$/);
    const withSession = await app.request("/v1/agent/test/ping", from("203.0.113.40", { authorization: "Bearer t0k" }));
    expect(withSession.headers.get("ratelimit-policy")).toBe('"client";q=20;w=60, "session";q=20;w=60');
    expect(withSession.headers.get("ratelimit")).toMatch(/^"client";r=17;t=\d+, "session";r=19;t=\d+$/);
    for (let i = 0; i < 17; i++) await app.request("/v1/agent/test/ping", from("203.0.113.40"));
    const limited = await app.request("/v1/agent/test/ping", from("203.0.113.40"));
    expect(limited.status).toBe(429);
    expect(limited.headers.get("ratelimit-policy")).toBe('"client";q=20;w=60');
    expect(limited.headers.get("ratelimit")).toBe(`"client";r=0;t=${limited.headers.get("retry-after")}`);
    // The sign page and /mcp are limited too (the same budget); probes are not.
    expect((await app.request("/sign/q8kVb2n5TzY1xW0aP3mL7rS9dF4gH6jKq8kV", from("203.0.113.40"))).status).toBe(429);
    const mcp = await app.request("/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "x-forwarded-for": "203.0.113.40" },
      body: "{}",
    });
    expect(mcp.status).toBe(429);
    expect((await app.request("/health", from("203.0.113.40"))).status).toBe(200);
  });

  it("states the limits in the OpenAPI document: x-rate-limit, the description, and the 429's headers", async () => {
    const { app } = testApp({ db, redis: redisA, rateLimit: { points: 77, duration: 30, keyPrefix: `${prefix}:rl:doc` }, options: routes });
    const doc = await json(await app.request("/v1/agent/openapi.json"));
    expect(doc["x-rate-limit"]).toMatchObject({ requests: 77, windowSeconds: 30 });
    expect(doc.info.description).toContain("77 requests per 30 s per client address");
    const refused = doc.paths["/v1/agent/swap/quote"].get.responses["429"];
    expect(Object.keys(refused.headers).sort()).toEqual(["RateLimit", "RateLimit-Policy", "Retry-After"]);
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

describe("honest RateLimit headers (issue 54): they fall by what a call cost, one policy per name", () => {
  const LIMIT = 40;
  let server: Server | undefined;
  let base: string;
  const list = (from: string, id: number) =>
    requestFrom(from, `${base}/mcp`, {
      headers: { accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list" }),
    });
  /** The one "client" state of an answer: r and t (fails on none, or on two). */
  const clientState = (headers: Record<string, string | string[] | undefined>) => {
    const policy = String(headers["ratelimit-policy"]);
    const state = String(headers.ratelimit);
    expect(policy.match(/"client"/g), policy).toHaveLength(1);
    expect(state.match(/"client"/g), state).toHaveLength(1);
    const [, r, t] = /"client";r=(\d+);t=(\d+)/.exec(state)!;
    return { r: Number(r), t: Number(t) };
  };

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    // The socket's address is the client (no proxy): each 127.0.0.x source is a client of its own.
    const { app } = testApp({ db, redis: redisA, rateLimit: { points: LIMIT, duration: 60, keyPrefix: `${prefix}:rl:honest`, trustProxyHops: 0 } });
    server = serve({ fetch: app.fetch, port, hostname: "127.0.0.1" }) as Server;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  it("MCP tools/list over HTTP: r falls by each list's cost; the 429 names one client policy with r=0 and t = Retry-After", async () => {
    const first = await list("127.0.0.21", 1);
    expect(first.status).toBe(200);
    expect(first.headers["ratelimit-policy"]).toBe(`"client";q=${LIMIT};w=60`);
    // A point for the POST and one per further 16 KiB of answer (api/routes/mcp.ts).
    const cost = Math.ceil(Buffer.byteLength(first.text) / COST_UNIT_BYTES);
    expect(cost).toBeGreaterThan(1);
    const remaining = [clientState(first.headers).r];
    let last = first;
    for (let id = 2; last.status === 200; id++) {
      last = await list("127.0.0.21", id);
      if (last.status === 200) remaining.push(clientState(last.headers).r);
    }
    console.log(`tools/list costs ${cost} points of ${LIMIT}: RateLimit r after each list ${remaining.join(", ")}; then ${last.status}`);
    expect(remaining).toEqual(Array.from({ length: Math.floor(LIMIT / cost) }, (_, i) => LIMIT - (i + 1) * cost));
    expect(last.status).toBe(429);
    expect(last.json.code).toBe("RATE_LIMITED");
    expect(last.headers["ratelimit-policy"]).toBe(`"client";q=${LIMIT};w=60`);
    const refused = clientState(last.headers);
    expect(refused.r).toBe(0);
    expect(String(refused.t)).toBe(last.headers["retry-after"]);
    // Another address is another client, with its whole budget.
    const other = await list("127.0.0.22", 1);
    expect(other.status).toBe(200);
    expect(clientState(other.headers).r).toBe(LIMIT - cost);
  });

  it("a plain request costs one point, an MCP tool call two (the POST and the route it runs), a sign-in its own named policy beside the client's", async () => {
    const from = "127.0.0.23";
    expect(clientState((await requestFrom(from, `${base}/llms.txt`)).headers).r).toBe(LIMIT - 1);
    expect(clientState((await requestFrom(from, `${base}/llms.txt`)).headers).r).toBe(LIMIT - 2);
    const call = await requestFrom(from, `${base}/mcp`, {
      headers: { accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "sign_requests_id", arguments: { id: "no-such-request" } } }),
    });
    expect(call.status).toBe(200);
    expect(clientState(call.headers).r).toBe(LIMIT - 4);
    const challenge = await requestFrom("127.0.0.24", `${base}/v1/agent/report-card/session/challenge`, { body: JSON.stringify({ owner: OWNER_A }) });
    expect(challenge.status).toBe(200);
    expect(challenge.headers["ratelimit-policy"]).toBe(`"client";q=${LIMIT};w=60, "sign-in-challenge";q=20;w=600`);
    expect(challenge.headers.ratelimit).toMatch(new RegExp(`^"client";r=${LIMIT - 1};t=\\d+, "sign-in-challenge";r=19;t=\\d+$`));
  });
});
