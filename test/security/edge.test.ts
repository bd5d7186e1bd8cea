// Trust at the edge (issue 19): /mcp under the client's limit, one message per POST and the tool list
// built once; hostile JSON nesting refused before any deeper work; prepare jobs carry only the fields
// the route validated; a swap quote with its Redis gone answers 503, not 500.
import type { PublicClient } from "viem";
import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH, nestedDeeperThan } from "../../api/middleware/json-depth.js";
import { createJobClient, type JobClient } from "../../adapters/queue/request-reply.js";
import { json, noDeployments, testApp, useApiFixture } from "../api/support.js";
import { startRedisServer } from "../helpers/redis-server.js";

const OWNER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" as const;
const VAULT = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC" as const;
const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

const api = useApiFixture();

const deep = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
const rpc = (id: number, method: string, params: unknown = {}) => ({ jsonrpc: "2.0", id, method, params });

describe("/mcp", () => {
  it("refuses a JSON-RPC batch (a 100-call tools/list) with a JSON-RPC error, before any work", async () => {
    const { app } = testApp({ db: api.db, redis: api.redis, rateLimit: { keyPrefix: `${api.prefix}:rl:batch` } });
    const batch = JSON.stringify(Array.from({ length: 100 }, (_, i) => rpc(i, "tools/list")));
    const response = await app.request("/mcp", { method: "POST", headers: MCP_HEADERS, body: batch });
    expect(response.status).toBe(400);
    const body = await json(response);
    expect(body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
    expect(body.error.message).toMatch(/batch/i);
    expect(app.mcp.builds).toEqual({ servers: 0, toolLists: 0 }); // no server, no tool list built for it
  });

  it("serves tools/list from the per-process cache: a POST builds no server and no list once warm", async () => {
    const { app } = testApp({ db: api.db, redis: api.redis, rateLimit: { keyPrefix: `${api.prefix}:rl:cache` } });
    const list = () => app.request("/mcp", { method: "POST", headers: MCP_HEADERS, body: JSON.stringify(rpc(1, "tools/list")) });
    const first = await list();
    expect(first.status).toBe(200);
    const tools = (await json(first)).result.tools as { name: string }[];
    expect(tools.length).toBeGreaterThan(30);
    const warm = { ...app.mcp.builds };
    let started = performance.now();
    for (let i = 0; i < 20; i++) expect((await json(await list())).result.tools).toHaveLength(tools.length);
    const cachedMs = (performance.now() - started) / 20;
    expect(app.mcp.builds).toEqual(warm);
    // What a POST cost before: a server with every tool registered, and the list built again.
    started = performance.now();
    for (let i = 0; i < 5; i++) await app.mcp.server();
    const buildMs = (performance.now() - started) / 5;
    console.log(`tools/list per POST: ${cachedMs.toFixed(2)} ms cached; building the server alone took ${buildMs.toFixed(2)} ms`);
  });

  it("counts against the client's limit (a flood gets 429); a tool call is limited as the same client; no outer headers leak", async () => {
    const { app } = testApp({ db: api.db, redis: api.redis, rateLimit: { points: 5, duration: 60, keyPrefix: `${api.prefix}:rl:flood` } });
    const post = (ip: string, message: unknown, extra: Record<string, string> = {}) =>
      app.request("/mcp", { method: "POST", headers: { ...MCP_HEADERS, "x-forwarded-for": ip, ...extra }, body: JSON.stringify(message) });
    // One POST with a tool call spends two points: the POST and the route it runs.
    const call = await post("198.51.100.5", rpc(1, "tools/call", { name: "sign_requests_id", arguments: { id: "no-such-request" } }), {
      origin: "https://x.example",
      "x-request-id": "outer-id",
    });
    expect(call.status).toBe(200);
    expect(call.headers.get("access-control-allow-origin")).toBeNull();
    expect(call.headers.get("x-request-id")).toBe("outer-id");
    expect(call.headers.get("ratelimit")).toMatch(/^"client";r=3;t=\d+$/); // what the whole call cost: the POST and the route it ran (the inner answer's own headers do not leak)
    const result = (await json(call)).result;
    expect([result.isError, JSON.parse(result.content[0].text).code]).toEqual([true, "NOT_FOUND"]);
    expect(await api.redis.get(`${api.prefix}:rl:flood:ip:198.51.100.5`)).toBe("2");
    // Three more points, then the inner call is refused as the same client, then the POST itself.
    for (let i = 0; i < 2; i++) expect((await post("198.51.100.5", rpc(2, "ping"))).status).toBe(200);
    const inner = await json(await post("198.51.100.5", rpc(3, "tools/call", { name: "sign_requests_id", arguments: { id: "x" } })));
    expect(JSON.parse(inner.result.content[0].text).code).toBe("RATE_LIMITED");
    const flood = await Promise.all(Array.from({ length: 5 }, () => post("198.51.100.5", rpc(4, "tools/list"))));
    expect(flood.map((r) => r.status)).toEqual([429, 429, 429, 429, 429]);
    expect((await post("198.51.100.6", rpc(5, "ping"))).status).toBe(200); // another client is untouched
    // tools/list costs a point per 16 KiB of its answer (under 64 KB: at most 4 points): this 5-point budget holds one, not two.
    expect((await post("198.51.100.7", rpc(6, "tools/list"))).status).toBe(200);
    expect((await post("198.51.100.7", rpc(7, "tools/list"))).status).toBe(429);
  });
});

describe("JSON nesting", () => {
  it("scans brackets outside strings only", () => {
    expect(nestedDeeperThan(deep(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(nestedDeeperThan(deep(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
    expect(nestedDeeperThan(JSON.stringify({ s: `${"[".repeat(1000)}\\"` }), MAX_JSON_DEPTH)).toBe(false);
  });

  it("a 30,000-deep body within 64 KiB answers 400 INVALID_REQUEST naming the limit, on a prepare route and on /mcp", async () => {
    const { app } = testApp({ db: api.db, redis: api.redis, rateLimit: { keyPrefix: `${api.prefix}:rl:deep` } });
    const body = `{"owner":"${OWNER}","vault":"${VAULT}","amount":"1","extra":${deep(30_000)}}`;
    expect(body.length).toBeLessThan(64 * 1024);
    for (const [path, headers] of [
      ["/v1/agent/prepare/vault-deposit", { "content-type": "application/json" }],
      ["/mcp", MCP_HEADERS],
    ] as const) {
      const response = await app.request(path, { method: "POST", headers, body });
      expect(response.status, path).toBe(400);
      const answer = await json(response);
      expect(answer.code, path).toBe("INVALID_REQUEST");
      expect(answer.error, path).toContain(String(MAX_JSON_DEPTH));
    }
  });
});

describe("prepare jobs", () => {
  it("carry only the validated fields: extra ones are checked (a foreign receiver is refused) but never queued", async () => {
    const queued: unknown[] = [];
    const jobs = {
      run: async (_queue: string, _name: string, data: unknown) => (queued.push(data), Promise.reject(new Error("stop"))),
    } as unknown as JobClient;
    const { app } = testApp({ db: api.db, redis: api.redis, jobs, rateLimit: { keyPrefix: `${api.prefix}:rl:jobs` } });
    const post = (body: unknown) =>
      app.request("/v1/agent/prepare/vault-deposit", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const refused = await post({ owner: OWNER, vault: VAULT, amount: "1", receiver: VAULT });
    expect((await json(refused)).code).toBe("RECEIVER_NOT_OWNER");
    expect(queued).toHaveLength(0);
    await post({ owner: OWNER, vault: VAULT, amount: "1", note: { nested: [1, 2, 3] }, padding: "x".repeat(1000) });
    // The body is the validated fields only; beside it, who filed it and when its caller stops waiting.
    expect(queued).toEqual([
      {
        kind: "vault-deposit",
        body: { owner: OWNER, vault: VAULT, amount: "1", slippageBps: 100 },
        filer: { ownerSession: false, client: expect.any(String) },
        deadline: expect.any(Number),
      },
    ]);
  });
});

describe("swap quote", () => {
  it("answers 503 UNAVAILABLE, never 500, when the job queue's Redis is down", async () => {
    const server = await startRedisServer();
    const jobs = createJobClient({ redisUrl: server.url.replace("redis://", "redis://:hunter2secret@"), prefix: `${api.prefix}:bull` });
    // A chain whose tokens answer 18 decimals: the quote reaches the aggregator's queue.
    const client = {
      getCode: async () => "0x60",
      readContract: async ({ functionName }: { functionName: string }) => (functionName === "decimals" ? 18 : "TKN"),
    } as unknown as PublicClient;
    const deployments = { ...noDeployments, contracts: { aggregator: VAULT, markets: VAULT, usdg: OWNER } };
    const { app, log } = testApp({ db: api.db, redis: api.redis, jobs, client, deployments, rateLimit: { keyPrefix: `${api.prefix}:rl:quote` } });
    try {
      await server.kill();
      const response = await app.request(`/v1/agent/swap/quote?tokenIn=${OWNER}&tokenOut=${VAULT}&amount=1`);
      expect(response.status).toBe(503);
      expect((await json(response)).code).toBe("UNAVAILABLE");
      expect(log.text()).not.toContain("hunter2secret");
    } finally {
      await jobs.close();
      await server.kill();
    }
  });
});
