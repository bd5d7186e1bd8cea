// The API's HTTP surface as a browser and a careless client meet it (issue 9, item 6), over a real
// socket (@hono/node-server), so chunked bodies and preflights are the wire's, not a test shortcut:
//
// - CORS is deliberate (api/app.ts): /v1 routes answer any origin without credentials (agents and
//   browser tools call from anywhere; the only credential is a bearer token a browser never attaches
//   by itself), expose Retry-After; the sign page (/sign/{id}), health and metrics give no CORS
//   headers at all, so no foreign page can read them.
// - Request bodies over the limit get the spec's 400 INVALID_REQUEST naming the body, whether they
//   declare their length or stream it chunked; a body at the limit is read.
// - Requests Node's HTTP parser refuses (raw UTF-8 in the path, 16 KiB of headers) still answer in
//   the envelope (api/middleware/client-error.ts), not with Node's bare 400 / 431.
import { serve, type ServerType } from "@hono/node-server";
import { request, type Server } from "node:http";
import { connect } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_BODY_LIMIT_BYTES } from "../../api/middleware/body-limit.js";
import { answerParserErrors } from "../../api/middleware/client-error.js";
import { testApp, useApiFixture } from "../api/support.js";

const OWNER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const ORIGIN = "https://evil.example";

const api = useApiFixture();
let server: ServerType;
let base: string;

beforeAll(async () => {
  const { app } = testApp({ db: api.db, redis: api.redis, rateLimit: { keyPrefix: `${api.prefix}:rl` } });
  await new Promise<void>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve());
  });
  answerParserErrors(server as Server); // as api/main.ts does
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
});

type Raw = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

/** One request over a fresh socket; `chunks` streams the body chunked (no Content-Length). */
function raw(method: string, path: string, headers: Record<string, string>, body?: string, chunks = false): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, base);
    // agent: false: a socket of its own (the server closes one after refusing a body it did not read).
    const req = request({ host: url.hostname, port: url.port, method, path: url.pathname + url.search, headers, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on("error", reject);
    if (body === undefined) return req.end();
    if (!chunks) return req.end(body);
    // Chunked: 16 KiB at a time, as a streaming client sends it.
    for (let i = 0; i < body.length; i += 16 * 1024) req.write(body.slice(i, i + 16 * 1024));
    req.end();
  });
}

describe("CORS", () => {
  it("a preflight to a /v1 route from any origin: allowed, without credentials, GET and POST with JSON and Authorization", async () => {
    const res = await raw("OPTIONS", "/v1/agent/report-card/session", {
      origin: ORIGIN,
      "access-control-request-method": "POST",
      "access-control-request-headers": "content-type, authorization",
    });
    expect(res.status).toBeLessThan(300);
    expect(res.headers["access-control-allow-origin"]).toBe("*");
    expect(res.headers["access-control-allow-credentials"]).toBeUndefined();
    expect(String(res.headers["access-control-allow-methods"])).toMatch(/GET/);
    expect(String(res.headers["access-control-allow-methods"])).toMatch(/POST/);
    expect(String(res.headers["access-control-allow-methods"])).not.toMatch(/DELETE|PUT|PATCH/);
    expect(String(res.headers["access-control-allow-headers"]).toLowerCase()).toMatch(/authorization/);
  });

  it("a simple GET of a /v1 route: any origin may read it, and Retry-After is exposed; never echoes the origin with credentials", async () => {
    const res = await raw("GET", "/v1/agent/openapi.json", { origin: ORIGIN });
    expect(res.status).toBe(200);
    expect(res.headers["access-control-allow-origin"]).toBe("*");
    expect(res.headers["access-control-allow-credentials"]).toBeUndefined();
    expect(String(res.headers["access-control-expose-headers"])).toMatch(/Retry-After/i);
    // A /v1 error answer carries the same header (a browser agent reads its code).
    const refused = await raw("GET", "/v1/agent/accounts/0x1234", { origin: ORIGIN });
    expect(refused.status).toBe(400);
    expect(refused.headers["access-control-allow-origin"]).toBe("*");
    expect(String(refused.headers["access-control-expose-headers"])).toMatch(/X-Request-Id/i);
  });

  it("every answer carries its request id: the caller's when plain and short, else a fresh one", async () => {
    const echoed = await raw("GET", "/v1/agent/accounts/0x1234", { "x-request-id": "agent-7-req-42" });
    expect(echoed.headers["x-request-id"]).toBe("agent-7-req-42");
    const fresh = await raw("GET", "/health", { "x-request-id": "has spaces; and more" });
    expect(String(fresh.headers["x-request-id"])).toMatch(/^[0-9a-f-]{36}$/);
    const missing = await raw("GET", "/nope", {});
    expect(missing.status).toBe(404);
    expect(String(missing.headers["x-request-id"])).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("activity answers say Cache-Control: no-store (a cursor's answer changes), refusals too; along with CORS and the request id", async () => {
    const refused = await raw("GET", `/v1/agent/accounts/${OWNER}/activity?cursor=not-a-live-cursor`, { origin: ORIGIN });
    expect(refused.status).toBe(404);
    expect(JSON.parse(refused.body).code).toBe("CURSOR_NOT_FOUND");
    expect(refused.headers["cache-control"]).toBe("no-store");
    expect(refused.headers["access-control-allow-origin"]).toBe("*");
    expect(String(refused.headers["x-request-id"])).toMatch(/^[0-9a-f-]{36}$/);
    // Other reads leave caching to the client.
    expect((await raw("GET", "/health", {})).headers["cache-control"]).toBeUndefined();
  });

  it("the sign page, health and metrics give no CORS headers: a foreign page cannot read them", async () => {
    for (const path of ["/sign/q8kVb2n5TzY1xW0aP3mL7rS9dF4gH6jKq8kV", "/health", "/metrics"]) {
      const get = await raw("GET", path, { origin: ORIGIN });
      expect(get.headers["access-control-allow-origin"], path).toBeUndefined();
      const preflight = await raw("OPTIONS", path, { origin: ORIGIN, "access-control-request-method": "GET" });
      expect(preflight.headers["access-control-allow-origin"], path).toBeUndefined();
    }
  });
});

describe("request bodies over the limit", () => {
  const json = { "content-type": "application/json" };
  const over = JSON.stringify({ owner: OWNER, pad: "x".repeat(DEFAULT_BODY_LIMIT_BYTES) });

  it("get 400 INVALID_REQUEST naming the body's size with a Content-Length, on a prepare route and on any other path", async () => {
    for (const path of ["/v1/agent/prepare/vault-deposit", "/v1/agent/report-card/session", "/v1/agent/no-such-route", "/health"]) {
      const res = await raw("POST", path, json, over);
      expect(res.status, path).toBe(400);
      expect(JSON.parse(res.body)).toMatchObject({
        code: "INVALID_REQUEST",
        details: {
          field: "body",
          issues: [{ field: "body", message: `is ${Buffer.byteLength(over)} bytes: at most ${DEFAULT_BODY_LIMIT_BYTES} bytes (64 KiB)` }],
        },
      });
    }
  });

  it("get 400 INVALID_REQUEST when streamed chunked without a length (1 MB)", async () => {
    const res = await raw("POST", "/v1/agent/prepare/vault-deposit", json, JSON.stringify({ owner: OWNER, pad: "y".repeat(1024 * 1024) }), true);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ code: "INVALID_REQUEST", details: { field: "body" } });
  });

  it("a body at the limit is read (and refused for what it says, not for its size)", async () => {
    const pad = "z".repeat(DEFAULT_BODY_LIMIT_BYTES - JSON.stringify({ owner: OWNER, pad: "" }).length);
    const body = JSON.stringify({ owner: OWNER, pad });
    expect(body.length).toBe(DEFAULT_BODY_LIMIT_BYTES);
    for (const chunked of [false, true]) {
      const res = await raw("POST", "/v1/agent/report-card/session/challenge", json, body, chunked);
      expect(res.status, `chunked ${chunked}`).toBe(400); // strict body: `pad` is not allowed
      expect(JSON.parse(res.body)).toMatchObject({ code: "INVALID_REQUEST" });
    }
  });
});

/** Raw bytes over a socket; resolves with everything the server sent until it closed. */
function rawBytes(bytes: Buffer | string): Promise<string> {
  return new Promise((resolve, reject) => {
    const url = new URL(base);
    const socket = connect(Number(url.port), url.hostname, () => socket.end(bytes));
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (c: string) => (text += c));
    socket.on("close", () => resolve(text));
    socket.on("error", reject);
  });
}

describe("requests the HTTP parser refuses", () => {
  const envelope = (text: string) => JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4)) as Record<string, unknown>;

  it("raw UTF-8 in the path, and bytes that are not HTTP: 400 INVALID_REQUEST in the envelope", async () => {
    for (const bytes of [Buffer.from("GET /v1/agent/vaults/\u00e9 HTTP/1.1\r\nHost: x\r\n\r\n", "utf8"), "NOT HTTP AT ALL\r\n\r\n"]) {
      const text = await rawBytes(bytes);
      expect(text).toMatch(/^HTTP\/1\.1 400 /);
      expect(envelope(text)).toMatchObject({ code: "INVALID_REQUEST" });
    }
  });

  it("a request line over 16 KiB: 400 INVALID_REQUEST in the envelope", async () => {
    const text = await rawBytes(`GET /v1/agent/vaults?x=${"a".repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    expect(envelope(text)).toMatchObject({ code: "INVALID_REQUEST" });
  });
});
