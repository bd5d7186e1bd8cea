// Scaled out (issue 9, item 5): two API processes and two workers (`npm run api` ×2, `npm run worker`
// ×2) on one Postgres and one Redis, on two ports, nothing in front. Shown here:
// - answers are identical from either API (reads, and a sign request stored through the other one),
//   but for the time of the answer (`asOf`);
// - the rate limit holds across both: a client gets RATE_LIMIT_POINTS answers in all, not per API;
// - jobs are shared: prepares sent through both APIs are run by both workers (BullMQ's processedBy);
// - no secret reaches the logs of a prepare: neither API nor worker log, at debug level, carries a
//   sign-request id, nor does a sign-in log its token or signature.
//
// Prepares only read the chain (nothing is signed or sent), for wallet 0's address.
import { Redis } from "ioredis";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { testAccount } from "../helpers/wallets.js";
import { loadDeployments } from "../../adapters/chain/deployments.js";
import { dropDeployment, newDeployment, startApi, startWorker, type ApiProcess, type ServiceProcess } from "../helpers/api-process.js";

const stack = inject("stack");
const owner = testAccount(0).address;
const LIMIT = 40;
const BASE_URL = "http://agents.scaled-out.test"; // one public URL for both replicas, as behind a balancer

const deployment = newDeployment();
const log: string[] = [];
let apis: ApiProcess[] = [];
let workers: ServiceProcess[] = [];
let redis: Redis;

beforeAll(async () => {
  redis = new Redis(process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379");
  const env = { RATE_LIMIT_POINTS: String(LIMIT), RATE_LIMIT_WINDOW_SECONDS: "120", TRUST_PROXY_HOPS: "1", BASE_URL, LOG_LEVEL: "debug" };
  // The first worker migrates the API schema; the others then find it current.
  workers = [await startWorker(stack, deployment, { name: "worker1", env, log })];
  workers.push(await startWorker(stack, deployment, { name: "worker2", env, log }));
  apis = await Promise.all([startApi(stack, deployment, { name: "api1", env, log }), startApi(stack, deployment, { name: "api2", env, log })]);
}, 300_000);

afterAll(async () => {
  await Promise.all([...apis, ...workers].map((p) => p.stop()));
  await dropDeployment(stack, deployment, redis).catch(() => {});
  redis?.disconnect();
});

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/**
 * Where two JSON answers differ, as "path: a ≠ b". The one difference allowed is the time of the
 * answer itself (`asOf` is the request's clock): two ISO times less than 5 s apart.
 */
function diff(a: unknown, b: unknown, path = ""): string[] {
  if (typeof a === "string" && typeof b === "string" && ISO.test(a) && ISO.test(b) && Math.abs(Date.parse(a) - Date.parse(b)) < 5000) return [];
  if (a && b && typeof a === "object" && typeof b === "object") {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].flatMap((k) => diff((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}/${k}`));
  }
  return Object.is(a, b) ? [] : [`${path || "/"}: ${JSON.stringify(a)?.slice(0, 80)} ≠ ${JSON.stringify(b)?.slice(0, 80)}`];
}

/** A GET as the client `ip` (each test is a client of its own, so their limits do not mix). */
async function get(api: ApiProcess, path: string, ip: string) {
  const res = await fetch(`${api.url}${path}`, { headers: { "x-forwarded-for": ip } });
  return { status: res.status, text: await res.text(), retryAfter: res.headers.get("retry-after") };
}

async function post(api: ApiProcess, path: string, body: unknown, ip: string) {
  const res = await fetch(`${api.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": ip },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

describe("two APIs and two workers on one Postgres and one Redis", () => {
  it("both APIs answer the same reads with the same bodies", async () => {
    const d = loadDeployments(stack.deploymentsFile);
    const vault = d.vaults[0]!.address;
    const paths = [
      "/v1/agent/products",
      "/v1/agent/vaults",
      `/v1/agent/vaults/${vault}`,
      `/v1/agent/accounts/${testAccount(1).address}`,
      "/v1/tokens",
      "/v1/agent/openapi.json",
      "/v1/agent/skill.md",
    ];
    for (const path of paths) {
      // The devnet keeps moving: ask both at once, and again while a block lands between them.
      let same = false;
      let last = "";
      for (let attempt = 0; attempt < 6 && !same; attempt++) {
        const [a, b] = await Promise.all(apis.map((api) => get(api, path, "10.1.0.1")));
        expect(a!.status, path).toBe(200);
        expect(b!.status, path).toBe(200);
        const differences = path.endsWith(".md") ? (a!.text === b!.text ? [] : ["the text"]) : diff(JSON.parse(a!.text), JSON.parse(b!.text));
        same = differences.length === 0;
        last = differences.slice(0, 5).join("; ");
      }
      expect(same, `${path}: ${last}`).toBe(true);
    }
  }, 120_000);

  it("the rate limit holds across both: one client gets the limit once, not once per API", async () => {
    const ip = "10.2.0.1";
    const answers = [];
    // 2.5 times the limit, alternating between the two APIs.
    for (let i = 0; i < LIMIT * 2.5; i++) answers.push(await get(apis[i % 2]!, "/v1/agent/vaults", ip));
    const allowed = answers.filter((a) => a.status === 200);
    const limited = answers.filter((a) => a.status === 429);
    expect(allowed.length + limited.length).toBe(answers.length);
    expect(allowed.length).toBe(LIMIT);
    // Both APIs refused some (each knew of the other's count), each with Retry-After and the code.
    expect(answers.filter((a, i) => i % 2 === 0 && a.status === 429).length).toBeGreaterThan(0);
    expect(answers.filter((a, i) => i % 2 === 1 && a.status === 429).length).toBeGreaterThan(0);
    for (const a of limited) {
      expect(JSON.parse(a.text)).toMatchObject({ code: "RATE_LIMITED" });
      expect(Number(a.retryAfter)).toBeGreaterThan(0);
    }
    // Another client is not affected.
    expect((await get(apis[1]!, "/v1/agent/vaults", "10.2.0.2")).status).toBe(200);
  }, 120_000);

  it("jobs are shared: prepares through both APIs run on both workers, and either API serves the stored request; no id is logged", async () => {
    const d = loadDeployments(stack.deploymentsFile);
    const vault = d.vaults.find((v) => v.family === "merged")!.address;
    const before = log.length;
    // 24 prepares at once, half through each API (distinct amounts: distinct jobs). The rate limit is
    // per owner for these (the body names it): 24 stay under it.
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, i) => post(apis[i % 2]!, "/v1/agent/prepare/vault-deposit", { owner, vault, amount: `${10 + i}.5` }, `10.3.0.${i}`)),
    );
    const ok = results.filter((r) => r.status === 200).map((r) => JSON.parse(r.text).data as { id?: string; signUrl: string });
    expect(ok.length, results.map((r) => `${r.status} ${r.text.slice(0, 200)}`).join("\n")).toBe(24);

    // BullMQ records which worker ran each job; both ran some.
    const prefix = `${deployment.redisPrefix}:bull:prepare:`;
    const keys = (await redis.keys(`${prefix}*`)).filter((k) => /:\d+$/.test(k));
    const ranBy = await Promise.all(keys.map((k) => redis.hget(k, "pb")));
    const workersSeen = new Set(ranBy.filter(Boolean));
    expect(keys.length).toBeGreaterThanOrEqual(24);
    expect(workersSeen.size, `processedBy: ${[...workersSeen].join(", ")}`).toBe(2);

    // A request stored through one API is served, the same, by the other.
    const ids = ok.map((r) => r.signUrl.split("/").pop()!);
    for (const id of ids.slice(0, 4)) {
      const [a, b] = await Promise.all(apis.map((api) => get(api, `/v1/agent/sign-requests/${id}`, "10.3.1.1")));
      expect(a!.status).toBe(200);
      expect(a!.text).toBe(b!.text);
      expect(ok.map((r) => r.signUrl)).toContain(`${BASE_URL}/sign/${id}`);
    }

    // A sign-in through one API and a private read through the other.
    const wallet = privateKeyToAccount(generatePrivateKey());
    const challenge = JSON.parse((await post(apis[0]!, "/v1/agent/report-card/session/challenge", { owner: wallet.address }, "10.3.2.1")).text).data;
    const signature = await wallet.signMessage({ message: challenge.message });
    const session = await post(apis[1]!, "/v1/agent/report-card/session", { owner: wallet.address, challengeId: challenge.challengeId, signature }, "10.3.2.1");
    expect(session.status, session.text).toBe(200);
    const token = JSON.parse(session.text).data.token as string;
    const card = await fetch(`${apis[0]!.url}/v1/agent/report-card/${wallet.address}/private`, {
      headers: { authorization: `Bearer ${token}`, "x-forwarded-for": "10.3.2.1" },
    });
    expect(card.status).toBe(200);

    // The logs at debug level: the requests are there, their secrets are not.
    await new Promise((r) => setTimeout(r, 500)); // let the last lines arrive
    const lines = log.slice(before).join("\n");
    expect(lines).toMatch(/api1\| .*"path":"\/v1\/agent\/prepare\/vault-deposit"/);
    expect(lines).toMatch(/api2\| .*"path":"\/v1\/agent\/sign-requests\/:id"/);
    for (const secret of [...ids, token, signature, challenge.challengeId as string]) expect(lines).not.toContain(secret);
    for (const p of [...apis, ...workers]) expect(p.alive()).toBe(true);
  }, 180_000);
});
