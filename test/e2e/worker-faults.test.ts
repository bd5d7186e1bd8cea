// Worker faults against the real processes (`npm run api`, `npm run worker`) over the run's devnet and
// indexer, with each dependency behind something the test can take away:
// - the API's Postgres behind a TCP proxy (test/helpers/tcp-proxy.ts) the test cuts and restores;
// - the chain RPC behind proxies: a slow one (every chunk held 1.5 s) for the worker that is killed
//   mid-job, a cuttable one for the API and the other worker;
// - a Redis server of the test's own (test/helpers/redis-server.ts), SIGKILLed and started again on its port.
// Wallet 18 (funded here by the admin, 10) is the prepares' owner.
import { Queue } from "bullmq";
import postgres from "postgres";
import { createPublicClient, createWalletClient, http, parseEther, type Address } from "viem";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { testTokenAbi } from "../../abis/index.js";
import { accountAddress, devnetChain } from "../../devnet/chain.js";
import { loadDeployments, type Deployments } from "../../adapters/chain/deployments.js";
import { PREPARE_TIMEOUT_MS } from "../../usecases/prepare/job.js";
import { newDeployment, startApi, startWorker, type ApiProcess, type Deployment, type ServiceProcess } from "../helpers/api-process.js";
import { fetchOpenApi, responseValidator, type ResponseValidator } from "../helpers/openapi-validate.js";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.js";
import { waitFor } from "../helpers/stack.js";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.js";

const stack = inject("stack");
const OWNER = accountAddress(18);
const USDG = 10n ** 6n;

let d: Deployments;
let redis: RedisServer;
let pgProxy: TcpProxy;
let rpcProxy: TcpProxy;
let slowRpc: TcpProxy;
let deployment: Deployment;
let api: ApiProcess;
const workers: ServiceProcess[] = [];
let validator: ResponseValidator;
let sql: postgres.Sql;
const log: string[] = [];

beforeAll(async () => {
  d = loadDeployments(stack.deploymentsFile);
  const rpcPort = Number(new URL(stack.rpcUrl).port);
  const pg = new URL(stack.databaseUrl);
  [redis, pgProxy, rpcProxy, slowRpc] = await Promise.all([
    startRedisServer(),
    startTcpProxy(pg.hostname, Number(pg.port || 5432)),
    startTcpProxy("127.0.0.1", rpcPort),
    startTcpProxy("127.0.0.1", rpcPort),
  ]);
  // Wallet 18: USDG minted and gas sent by the admin.
  const chain = createPublicClient({ chain: devnetChain, transport: http(stack.rpcUrl) });
  const admin = createWalletClient({ chain: devnetChain, transport: http(stack.rpcUrl), account: accountAddress(10) });
  for (const hash of [
    await admin.writeContract({
      address: d.contracts.usdg! as Address,
      abi: testTokenAbi,
      functionName: "mint",
      args: [OWNER, 100_000n * USDG],
      chain: devnetChain,
    }),
    await admin.sendTransaction({ to: OWNER, value: parseEther("10"), chain: devnetChain }),
  ])
    expect((await chain.waitForTransactionReceipt({ hash, pollingInterval: 50 })).status).toBe("success");

  deployment = newDeployment();
  sql = postgres(stack.databaseUrl, { max: 1, onnotice: () => {} });
  const apiDb = Object.assign(new URL(stack.databaseUrl), { port: String(pgProxy.port) }).toString();
  api = await startApi(stack, deployment, {
    env: { DATABASE_URL: apiDb, REDIS_URL: redis.url, DEVNET_PORT: String(rpcProxy.port), RATE_LIMIT_POINTS: "100000" },
    log,
  });
  validator = responseValidator(await fetchOpenApi({ request: (path: string) => fetch(`${api.url}${path}`) }));
}, 240_000);

afterAll(async () => {
  await Promise.all([api?.stop(), ...workers.map((w) => w.stop("SIGKILL"))]);
  if (sql && deployment) await sql.unsafe(`drop schema if exists "${deployment.apiSchema}" cascade`).catch(() => {});
  await sql?.end();
  await Promise.all([redis?.kill(), pgProxy?.close(), rpcProxy?.close(), slowRpc?.close()]);
}, 60_000);

type Answer = { status: number; body: any; ms: number };

async function call(method: "GET" | "POST", path: string, body?: unknown): Promise<Answer> {
  const t0 = Date.now();
  const res = await fetch(`${api.url}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  const answer = await res.json();
  expect(validator.errors(method, path, res.status, answer), `${method} ${path} ${res.status} against the OpenAPI document`).toEqual([]);
  return { status: res.status, body: answer, ms: Date.now() - t0 };
}

const vault = () => d.vaults[0]!.address;
const prepare = (amount = "100") => call("POST", "/v1/agent/prepare/vault-deposit", { owner: OWNER, vault: vault(), amount });
const reads = () => Promise.all([call("GET", `/v1/agent/accounts/${OWNER}`), call("GET", "/v1/baskets")]);
const count = async (table: string) => Number((await sql.unsafe(`select count(*)::int as n from "${deployment.apiSchema}"."${table}"`))[0]!.n);

async function worker(name: string, rpc: TcpProxy): Promise<ServiceProcess> {
  const w = await startWorker(stack as never, deployment, { name, env: { REDIS_URL: redis.url, DEVNET_PORT: String(rpc.port) }, log });
  workers.push(w);
  return w;
}

describe("worker faults", () => {
  it("a worker SIGKILLed mid-job: the request gets a 503 within its deadline; another worker runs the job once, or drops it unstored once its caller has gone", async () => {
    const queue = new Queue("prepare", { connection: { url: redis.url } as never, prefix: `${deployment.redisPrefix}:bull` });
    let stored = 0;
    try {
      const slow = await worker("w1", slowRpc);
      slowRpc.delayMs = 1_500;
      const pending = prepare("123");
      // Mid-job: the job is active on w1 and its pipeline has reached the (slow) chain since.
      await waitFor("the job active", async () => (await queue.getActiveCount()) === 1, 20_000, log);
      const before = slowRpc.bytesIn();
      await waitFor("the job at the chain", () => slowRpc.bytesIn() > before, 20_000, log);
      await slow.stop("SIGKILL");
      expect(slow.alive()).toBe(false);
      expect(await count("filing")).toBe(0);
      const other = await worker("w2", rpcProxy);
      const answer = await pending;
      if (answer.status === 200) {
        // w2 took the job over within its caller's deadline: one job, completed once, one sign request, one filing.
        expect(answer.body.data.id).toBeTruthy();
        await waitFor("the job completed on w2", async () => (await queue.getJobCounts("completed")).completed === 1, 90_000, log);
        const [job] = await queue.getJobs(["completed"]);
        expect(job!.processedBy ?? "").toContain(`-${other.child.pid}`);
        expect((job!.returnvalue as { id: string }).id).toBe(answer.body.data.id);
      } else {
        expect(answer.status, JSON.stringify(answer.body)).toBe(503);
        expect(answer.body.code).toBe("UNAVAILABLE");
        expect(answer.ms).toBeLessThan(PREPARE_TIMEOUT_MS + 3_000);
        // Its caller has gone (issue 32): BullMQ's stalled check (after the dead worker's 30 s lock) hands the
        // job to w2, which drops it, storing nothing: no sign request or filing nobody asked for any more.
        await waitFor("the job dropped on w2", async () => (await queue.getJobCounts("failed")).failed === 1, 90_000, log);
        const [job] = await queue.getJobs(["failed"]);
        expect(job!.failedReason).toMatch(/^caller-gone/);
      }
      const counts = await queue.getJobCounts("active", "waiting", "delayed", "prioritized");
      expect(counts).toMatchObject({ active: 0, waiting: 0, delayed: 0, prioritized: 0 });
      stored = answer.status === 200 ? 1 : 0;
      expect(await count("sign_request")).toBe(stored);
      expect(await count("filing")).toBe(stored);
    } finally {
      await queue.close();
    }

    // And the next prepare is answered by the live worker, with its own single filing.
    const next = await prepare("124");
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect(await count("filing")).toBe(stored + 1);
    expect(await count("sign_request")).toBe(stored + 1);
  }, 240_000);

  it("the RPC down: prepares 503, reads 200; back when it returns", async () => {
    await rpcProxy.cut();
    try {
      for (const r of await reads()) expect(r.status, JSON.stringify(r.body)).toBe(200);
      const refused = await prepare("125");
      expect(refused.status, JSON.stringify(refused.body)).toBe(503);
      expect(refused.body.code).toBe("UNAVAILABLE");
      expect(refused.ms).toBeLessThan(PREPARE_TIMEOUT_MS + 3_000);
    } finally {
      await rpcProxy.restore();
    }
    await waitFor("prepares again", async () => (await prepare("126")).status === 200, 30_000, log);
  }, 120_000);

  it("Postgres down under the API: 503, then answers again without a restart", async () => {
    const pid = api.child.pid;
    await pgProxy.cut();
    try {
      const r = await call("GET", `/v1/agent/accounts/${OWNER}/activity`);
      expect(r.status, JSON.stringify(r.body)).toBe(503);
      expect(r.body.code).toBe("UNAVAILABLE");
      expect((await call("GET", `/v1/agent/accounts/${OWNER}`)).status).toBe(503);
      // /ready answers a state checked at most once a second.
      await waitFor("/ready 503", async () => (await fetch(`${api.url}/ready`)).status === 503, 5_000, log);
    } finally {
      await pgProxy.restore();
    }
    await waitFor("reads again", async () => (await call("GET", `/v1/agent/accounts/${OWNER}/activity`)).status === 200, 30_000, log);
    for (const r of await reads()) expect(r.status).toBe(200);
    expect(api.alive()).toBe(true);
    expect(api.child.pid).toBe(pid);
  }, 120_000);

  it("Redis down: reads 200, job routes 503 UNAVAILABLE at once; everything back by itself when it returns", async () => {
    await redis.kill();
    try {
      for (const r of await reads()) expect(r.status, JSON.stringify(r.body)).toBe(200);
      const refused = await prepare("127");
      expect(refused.status, JSON.stringify(refused.body)).toBe(503);
      expect(refused.body.code).toBe("UNAVAILABLE");
      expect(refused.ms).toBeLessThan(PREPARE_TIMEOUT_MS);
    } finally {
      await redis.start(); // the same port, empty: nothing was persisted
    }
    await waitFor("prepares again", async () => (await prepare("128")).status === 200, 60_000, log);
    for (const r of await reads()) expect(r.status).toBe(200);
    expect(api.alive()).toBe(true);
    expect(workers.filter((w) => w.alive()).length).toBe(1);
  }, 120_000);
});
