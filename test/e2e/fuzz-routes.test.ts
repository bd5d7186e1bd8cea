// Fuzz every route of the served OpenAPI document (issue 9, item 1; widened by issue 19), over HTTP,
// against the API and a worker started as processes (`npm run api`, `npm run worker`) on the end-to-end
// stack (the devnet and its indexer): for each operation, fast-check generates 1,000 invalid and 200
// valid-but-odd requests (test/helpers/fuzz-requests.ts), sent over keep-alive connections 16 at a
// time; then /mcp (JSON-RPC messages) and the sign page /sign/{id}, which the document does not list.
//
// Pass: no answer is a 5xx; every error is {error, code[, details]} with a catalog code whose status
// is the answer's; a certainly-invalid request is never answered 2xx; every 2xx JSON answer validates
// against the document; /mcp answers JSON-RPC (a response or a batch of them with 200, 202 and no body
// for notifications only, a 4xx refusal as a JSON-RPC error or in the envelope), no tool call answers
// a 5xx code inside, and a message that certainly fails gets an error; the sign page answers only the
// statuses its id allows (200 live, 410 expired, 404 unknown), its HTML pages with no-store and
// no-referrer; and both processes are still running and healthy at the end of each part.
//
// FUZZ_RUNS_SCALE (default 1: 1,000 invalid and 200 valid per operation, 2,000 + 400 for /mcp, 1,000
// for the sign page) scales the counts; FUZZ_SEED replays a run (the seed is printed);
// FUZZ_ONLY=<part of a path> replays one route (or "/mcp", "/sign").
import { Agent, request } from "node:http";
import { Redis } from "ioredis";
import fc from "fast-check";
import { encodeFunctionData, erc20Abi } from "viem";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { testAccount } from "../helpers/wallets.js";
import type { OpenApiDocument } from "../../contract/discovery/catalog.js";
import { loadDeployments } from "../../adapters/chain/deployments.js";
import { createDb } from "../../adapters/db/connect.js";
import { createSignRequest, SIGN_REQUEST_TTL_MS } from "../../adapters/db/sign-requests.js";
import { isErrorCode } from "../../domain/errors.js";
import { errorStatus } from "../../contract/error-statuses.js";
import { dropDeployment, newDeployment, startApi, startWorker, type ApiProcess, type ServiceProcess } from "../helpers/api-process.js";
import {
  invalidRequestArb,
  MCP_PATH,
  mcpInvalidRequestArb,
  mcpValidRequestArb,
  operationsOf,
  signRequestArb,
  validRequestArb,
  type FuzzHints,
  type FuzzRequest,
  type McpTool,
  type SignIds,
} from "../helpers/fuzz-requests.js";
import { responseValidator, type OpenApiDocument as ValidatorDocument } from "../helpers/openapi-validate.js";

const stack = inject("stack");
const SCALE = Number(process.env.FUZZ_RUNS_SCALE ?? "1");
const INVALID = Math.max(1, Math.round(1000 * SCALE));
const VALID = Math.max(1, Math.round(200 * SCALE));
const MCP_INVALID = Math.max(1, Math.round(2000 * SCALE));
const MCP_VALID = Math.max(1, Math.round(400 * SCALE));
const SIGN = Math.max(1, Math.round(1000 * SCALE));
const ONLY = process.env.FUZZ_ONLY;
const wanted = (path: string) => !ONLY || path.includes(ONLY);
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const CONCURRENCY = 16;
const REQUEST_TIMEOUT_MS = 60_000;

const deployment = newDeployment();
const log: string[] = [];
let api: ApiProcess;
let worker: ServiceProcess;
let redis: Redis;
let doc: OpenApiDocument;

type Answer = { status: number; headers: Record<string, string | string[] | undefined>; text: string } | { error: string };

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

let retried = 0;

function send(baseUrl: string, r: FuzzRequest, keepAlive = true): Promise<Answer> {
  return new Promise((resolve) => {
    const url = new URL(baseUrl);
    const body = r.body === undefined ? undefined : Buffer.from(r.body);
    // Each request as a client of its own behind one trusted proxy (TRUST_PROXY_HOPS=1), so that
    // stricter per-IP limits of single routes (basket plan: 6 a minute) do not hide their validation.
    const headers: Record<string, string | number> = {
      "x-forwarded-for": `10.${(Math.random() * 256) | 0}.${(Math.random() * 256) | 0}.${(Math.random() * 256) | 0}`,
      ...r.headers,
    };
    if (body) headers["content-length"] = body.length;
    const req = request(
      { host: url.hostname, port: url.port, method: r.method, path: r.path, headers, agent: keepAlive ? agent : false, timeout: REQUEST_TIMEOUT_MS },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", (e) => resolve({ error: `response: ${e.message}` }));
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
    req.on("error", (e) => resolve({ error: e.message }));
    if (body) req.end(body);
    else req.end();
  });
}

/** Sends every request, `CONCURRENCY` at a time, and hands each answer to `check`. */
async function sendAll(baseUrl: string, requests: FuzzRequest[], check: (r: FuzzRequest, a: Answer) => void): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < requests.length) {
        const r = requests[next++]!;
        let answer = await send(baseUrl, r);
        // The server closes a connection after refusing a body it did not read (400, the body limit); a request that
        // raced onto that kept-alive socket is sent again on a fresh one. A 1 MB body can also meet
        // that close on its own fresh socket (EPIPE while still writing, before the 400 is read: seen
        // once in CI), so up to 6 fresh tries. A crash would not hide here: the processes are checked
        // after every operation. Under load the server may take longer than its 500 ms to drain the
        // refused body and cut the socket again, so the tries back off.
        for (let tries = 0; tries < 6 && "error" in answer && /socket hang up|ECONNRESET|EPIPE/.test(answer.error); tries++) {
          retried++;
          if (tries > 0) await new Promise((resolve) => setTimeout(resolve, 200 * tries));
          answer = await send(baseUrl, r, false);
        }
        check(r, answer);
      }
    }),
  );
}

// ------------------------------------------------------------------ what an answer may be

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const contentType = (a: { headers: Record<string, string | string[] | undefined> }) => String(a.headers["content-type"] ?? "");

/** Why `body` is not an error in the envelope with a catalog code whose status is `status` (undefined: it is). */
function envelopeFault(status: number, body: unknown): string | undefined {
  if (!isObject(body)) return "not {error, code}";
  // 402 PAYMENT_REQUIRED also carries x402 v2's PaymentRequired (x402Version, resource, accepts) beside {error, code}.
  const keys = Object.keys(body)
    .filter((k) => !(status === 402 && (k === "x402Version" || k === "resource" || k === "accepts")))
    .sort()
    .join();
  if (!(keys === "code,error" || keys === "code,details,error") || typeof body.error !== "string" || !body.error) return "not {error, code}";
  if (!isErrorCode(body.code)) return "code not in the catalog";
  if (errorStatus[body.code] !== status) return `but the catalog says ${errorStatus[body.code]} for ${body.code}`;
  return undefined;
}

/** Why `v` is not one JSON-RPC 2.0 response (undefined: it is). */
function rpcResponseFault(v: unknown): string | undefined {
  if (!isObject(v) || v.jsonrpc !== "2.0" || !("id" in v)) return "not a JSON-RPC 2.0 response";
  if ("result" in v === "error" in v) return "neither or both of result and error";
  if ("error" in v) {
    const e = v.error;
    if (!isObject(e) || !Number.isInteger(e.code) || typeof e.message !== "string") return "an error without an integer code and a message";
    // JSON-RPC's "Internal error": the 500 of an answer that is otherwise well formed.
    if (e.code === -32603) return `an internal error (-32603): ${e.message}`;
    return undefined;
  }
  // A tool's answer: an error body from its route (its text) is in the envelope, and never a 5xx code;
  // a success is {data} (structuredContent).
  const result = v.result;
  if (isObject(result) && result.isError === true) {
    const text = Array.isArray(result.content) && isObject(result.content[0]) ? result.content[0].text : undefined;
    let content: unknown;
    try {
      content = JSON.parse(String(text));
    } catch {
      content = undefined;
    }
    // The SDK's own refusals (input validation, an unknown tool) are plain text.
    if (isObject(content)) {
      const { retryAfterSeconds: _r, ...rest } = content;
      const code = rest.code;
      if (!isErrorCode(code)) return `a tool error outside the catalog: ${JSON.stringify(content).slice(0, 200)}`;
      const fault = envelopeFault(errorStatus[code], rest);
      if (fault) return `a tool error ${fault}`;
      if (errorStatus[code] >= 500) return `a tool answered ${errorStatus[code]} ${code}`;
    }
  } else if (isObject(result) && "content" in result && !(isObject(result.structuredContent) && "data" in result.structuredContent))
    return "a tool success without data";
  return undefined;
}

const rpcFailed = (v: unknown) => isObject(v) && ("error" in v || (isObject(v.result) && v.result.isError === true));

beforeAll(async () => {
  redis = new Redis(process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379");
  // A high limit: the fuzz is one client; the limit itself is tested in scaled-out.test.ts.
  // The API logs warnings and errors only (a line per request would be 50,000 lines).
  const env = { RATE_LIMIT_POINTS: "10000000", TRUST_PROXY_HOPS: "1" };
  worker = await startWorker(stack, deployment, { env, log });
  api = await startApi(stack, deployment, { env: { ...env, LOG_LEVEL: "warn" }, log });
  const res = await fetch(`${api.url}/v1/agent/openapi.json`);
  doc = (await res.json()) as OpenApiDocument;
}, 240_000);

afterAll(async () => {
  agent.destroy();
  await Promise.all([api?.stop(), worker?.stop()]);
  await dropDeployment(stack, deployment, redis).catch(() => {});
  redis?.disconnect();
});

function hintsOf(): FuzzHints {
  const d = loadDeployments(stack.deploymentsFile);
  return {
    addresses: [
      ...d.vaults.map((v) => v.address),
      ...d.tokens.map((t) => t.address),
      ...d.baskets.map((b) => b.address),
      ...Object.values(d.contracts),
      ...Array.from({ length: 10 }, (_, i) => testAccount(i).address),
    ],
    symbols: d.tokens.map((t) => t.symbol),
  };
}

/** Failures and answer counts of one part of the fuzz. */
function tally() {
  const failures: string[] = [];
  const statuses = new Map<string, number>();
  return {
    failures,
    statuses,
    count: (key: string) => statuses.set(key, (statuses.get(key) ?? 0) + 1),
    // A 5xx shows its whole request (up to 2,000 characters), to replay it.
    fail: (r: FuzzRequest, why: string, text = "") => {
      const cut = /^5/.test(why) ? 2000 : 160;
      failures.push(
        `${why}: ${r.method} ${r.path.slice(0, cut)} [${r.what}] ${r.headers["content-type"] ?? ""} body ${JSON.stringify(r.body?.slice(0, cut) ?? null)} → ${text.slice(0, 240)}`,
      );
    },
  };
}

/** The processes survived and answer; no failure (the first ones shown with the processes' own account of any fault). */
async function expectHealthy(part: string, failures: string[]): Promise<void> {
  expect(api.alive(), `the API exited during ${part}`).toBe(true);
  expect(worker.alive(), `the worker exited during ${part}`).toBe(true);
  expect((await fetch(`${api.url}/health`)).status).toBe(200);
  expect((await fetch(`${api.url}/v1/agent/products`)).status).toBe(200);
  const unique = [...new Set(failures.map((f) => f.replace(/\b0x[0-9a-fA-F]{40}\b/g, "0x…")))];
  // The processes' own account of any fault (API at warn, worker at info and up).
  const faults = log.filter((line) => /"level":"(error|fatal)"/.test(line)).slice(0, 10);
  if (unique.length) console.log(`${part}: first failures:\n${unique.slice(0, 20).join("\n")}\nfaults logged:\n${faults.join("\n")}`);
  expect(unique.slice(0, 60), `${part}: ${failures.length} failures (seed ${SEED}); first ones`).toEqual([]);
}

const summary = (statuses: Map<string, number>) =>
  `answers: ${[...statuses]
    .sort()
    .map(([k, n]) => `${k}×${n}`)
    .join(", ")}`;

describe("fuzz every route of the served OpenAPI document", () => {
  it(
    `answers ${INVALID} invalid and ${VALID} valid-but-odd requests per operation without a 5xx, in the catalog's envelope`,
    async () => {
      const hints = hintsOf();
      const all = operationsOf(doc);
      expect(all.length).toBeGreaterThan(20);
      // FUZZ_ONLY=<part of a path> replays one route (with its FUZZ_SEED; each operation's seed is SEED + its index).
      const operations = all.filter((op) => wanted(op.path));
      const validator = responseValidator(doc as ValidatorDocument);
      const { failures, statuses, count, fail } = tally();
      const check = (r: FuzzRequest, a: Answer) => {
        if ("error" in a) return fail(r, "no answer", a.error);
        count(`${a.status}`);
        if (a.status >= 500) return fail(r, `${a.status}`, a.text);
        if (a.status >= 200 && a.status < 300) {
          if (r.mustRefuse) fail(r, `accepted (${a.status}) though invalid`, a.text);
          if (/application\/json/.test(contentType(a))) {
            try {
              const errors = validator.errors(r.method, r.path, a.status, JSON.parse(a.text)).filter((e) => !e.startsWith("the document has no path"));
              if (errors.length) fail(r, `${a.status} off the document (${errors.slice(0, 3).join("; ")})`, a.text);
            } catch (error) {
              if (!/the document has no/.test((error as Error).message)) fail(r, `${a.status} not checkable (${(error as Error).message})`, a.text);
            }
          }
          return;
        }
        if (a.status < 400) return; // redirects: none expected, none harmful
        let body: unknown;
        try {
          body = JSON.parse(a.text);
        } catch {
          return fail(r, `${a.status} not JSON`, a.text);
        }
        const fault = envelopeFault(a.status, body);
        if (fault) return fail(r, `${a.status} ${fault}`, a.text);
        count(`${a.status} ${(body as Json).code}`);
      };

      const started = Date.now();
      const perOperation: string[] = [];
      for (const op of operations) {
        const seed = SEED + all.indexOf(op);
        const invalid = fc.sample(invalidRequestArb(doc, op, hints), { numRuns: INVALID, seed });
        const valid = fc.sample(validRequestArb(doc, op, hints), { numRuns: VALID, seed });
        const t0 = Date.now();
        const before = failures.length;
        await sendAll(api.url, [...invalid, ...valid], check);
        perOperation.push(
          `${op.method} ${op.path}: ${invalid.length} invalid + ${valid.length} valid in ${((Date.now() - t0) / 1000).toFixed(1)} s, ${failures.length - before} failures`,
        );
        expect(api.alive(), `the API exited during ${op.method} ${op.path}`).toBe(true);
      }
      const seconds = (Date.now() - started) / 1000;
      console.log(
        [
          `fuzz seed ${SEED}, scale ${SCALE}: ${operations.length} operations, ${operations.length * (INVALID + VALID)} requests in ${seconds.toFixed(1)} s (${retried} sent again after the server closed their kept-alive socket)`,
          ...perOperation,
          summary(statuses),
        ].join("\n"),
      );
      await expectHealthy("the OpenAPI operations", failures);
    },
    30 * 60_000,
  );

  it.runIf(wanted(MCP_PATH))(
    `answers ${MCP_INVALID} invalid and ${MCP_VALID} valid JSON-RPC requests at /mcp without a 5xx, in JSON-RPC or the envelope`,
    async () => {
      const hints = hintsOf();
      // The real tools, as an agent lists them.
      const listed = await fetch(`${api.url}${MCP_PATH}`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(listed.status).toBe(200);
      const tools = ((await listed.json()) as { result: { tools: McpTool[] } }).result.tools;
      expect(tools.length).toBeGreaterThan(20);

      const { failures, statuses, count, fail } = tally();
      const check = (r: FuzzRequest, a: Answer) => {
        if ("error" in a) return fail(r, "no answer", a.error);
        count(`${a.status}`);
        if (a.status >= 500) return fail(r, `${a.status}`, a.text);
        if (a.status === 202) {
          // Notifications only: accepted, no body.
          if (a.text !== "") fail(r, "202 with a body", a.text);
          if (r.mustRefuse) fail(r, "accepted (202) though invalid", a.text);
          return;
        }
        let body: unknown;
        try {
          body = JSON.parse(a.text);
        } catch {
          return fail(r, `${a.status} not JSON`, a.text);
        }
        if (a.status === 200) {
          if (!/application\/json/.test(contentType(a))) fail(r, `200 as ${contentType(a)}`, a.text);
          const responses = Array.isArray(body) ? body : [body];
          if (responses.length === 0) return fail(r, "200 with an empty batch", a.text);
          for (const response of responses) {
            const fault = rpcResponseFault(response);
            if (fault) return fail(r, `200 ${fault}`, JSON.stringify(response));
            count(`200 ${"error" in (response as Json) ? `rpc ${((response as Json).error as Json).code}` : rpcFailed(response) ? "tool isError" : "result"}`);
          }
          if (r.mustRefuse && !responses.every(rpcFailed)) fail(r, "answered a result though invalid", a.text);
          return;
        }
        if (a.status < 400 || a.status >= 500) return fail(r, `${a.status} unexpected`, a.text);
        // An HTTP-level refusal: the transport's JSON-RPC error (id null), or the API's envelope
        // (the body limit's 400, the depth cap's 400, no route's 404).
        if (isObject(body) && "jsonrpc" in body) {
          const fault = rpcResponseFault(body);
          if (fault || !("error" in body)) return fail(r, `${a.status} ${fault ?? "a JSON-RPC result with a 4xx"}`, a.text);
          count(`${a.status} rpc ${(body.error as Json).code}`);
          return;
        }
        const fault = envelopeFault(a.status, body);
        if (fault) return fail(r, `${a.status} neither JSON-RPC nor the envelope: ${fault}`, a.text);
        count(`${a.status} ${(body as Json).code}`);
      };

      const seed = SEED + 10_000;
      const invalid = fc.sample(mcpInvalidRequestArb(doc, tools, hints), { numRuns: MCP_INVALID, seed });
      const valid = fc.sample(mcpValidRequestArb(doc, tools, hints), { numRuns: MCP_VALID, seed });
      const t0 = Date.now();
      await sendAll(api.url, [...invalid, ...valid], check);
      console.log(
        `fuzz /mcp, seed ${SEED}: ${invalid.length} invalid + ${valid.length} valid in ${((Date.now() - t0) / 1000).toFixed(1)} s\n${summary(statuses)}`,
      );
      // Deliberate refusals were met (the fuzz reached past the transport's checks).
      expect([...statuses.keys()].filter((k) => /^200 (rpc|tool)/.test(k)).length).toBeGreaterThan(0);
      expect(statuses.get("200 result") ?? 0).toBeGreaterThan(0);
      await expectHealthy("/mcp", failures);
    },
    15 * 60_000,
  );

  it.runIf(wanted("/sign/{id}"))(
    `answers ${SIGN} odd requests of the sign page /sign/{id} without a 5xx, with the statuses its ids allow`,
    async () => {
      // One live and one expired sign request, stored as a prepare stores them.
      const db = createDb({ url: stack.databaseUrl, schema: deployment.apiSchema, max: 1 });
      const d = loadDeployments(stack.deploymentsFile);
      const owner = testAccount(3).address;
      const call = {
        to: d.contracts.usdg!,
        data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [d.vaults[0]!.address, 1_000_000n] }),
        value: "0x0",
      };
      const bundle = {
        steps: [{ to: call.to, data: call.data }],
        walletSendCalls: { version: "2.0.0", chainId: "0x1237", from: owner, atomicRequired: false, calls: [call] },
        params: { account: owner },
      };
      const now = new Date();
      const ids: SignIds = {
        live: (await createSignRequest(db, { owner, kind: "vault-deposit", bundle, now })).id,
        expired: (await createSignRequest(db, { owner, kind: "vault-deposit", bundle, now: new Date(now.getTime() - 2 * SIGN_REQUEST_TTL_MS) })).id,
      };
      await db.destroy();

      const { failures, statuses, count, fail } = tally();
      const check = (r: FuzzRequest, a: Answer) => {
        if ("error" in a) return fail(r, "no answer", a.error);
        count(`${a.status}`);
        if (a.status >= 500) return fail(r, `${a.status}`, a.text);
        if (r.allowed && !r.allowed.includes(a.status)) fail(r, `${a.status}, expected ${r.allowed.join(" or ")}`, a.text);
        if (/text\/html/.test(contentType(a))) {
          // The page itself: its secret id never leaves as a referrer, never cached.
          if (!/no-store/.test(String(a.headers["cache-control"]))) fail(r, `${a.status} page without Cache-Control: no-store`, a.text);
          if (a.headers["referrer-policy"] !== "no-referrer") fail(r, `${a.status} page without Referrer-Policy: no-referrer`, a.text);
          if (!a.headers["content-security-policy"]) fail(r, `${a.status} page without a Content-Security-Policy`, a.text);
          // Only a live request's page carries the calls to send.
          if (a.status !== 200 && a.text.includes(call.data.slice(2))) fail(r, `${a.status} page with the calldata`, a.text.slice(0, 200));
          count(`${a.status} page`);
          return;
        }
        let body: unknown;
        try {
          body = JSON.parse(a.text);
        } catch {
          return fail(r, `${a.status} neither a page nor JSON`, a.text);
        }
        const fault = a.status >= 400 ? envelopeFault(a.status, body) : `${a.status} JSON`;
        if (fault) return fail(r, `${a.status} ${fault}`, a.text);
        count(`${a.status} ${(body as Json).code}`);
      };

      const requests = fc.sample(signRequestArb(ids), { numRuns: SIGN, seed: SEED + 20_000 });
      const t0 = Date.now();
      await sendAll(api.url, requests, check);
      console.log(`fuzz /sign/{id}, seed ${SEED}: ${requests.length} requests in ${((Date.now() - t0) / 1000).toFixed(1)} s\n${summary(statuses)}`);
      // The known ids were reached: a live page and an expired one.
      expect(statuses.get("200 page") ?? 0).toBeGreaterThan(0);
      expect(statuses.get("410 page") ?? 0).toBeGreaterThan(0);
      await expectHealthy("/sign/{id}", failures);
    },
    10 * 60_000,
  );
});
