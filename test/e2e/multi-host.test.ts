// Multi-host on one machine (issue 22): the indexer, two APIs and two workers, each bound to a loopback
// address of its own (127.0.0.2-6), on one Postgres, one Redis and the chain, each reached at an address
// of its own too (TCP forwarders on 127.0.0.7-9). No process is told 127.0.0.1: the APIs learn that the
// index is ready from Postgres, not from the indexer's address. Shown:
// - every API becomes ready and answers reads; prepares through both APIs run on the workers;
// - each API's /metrics holds bullmq_job_count for every queue, each worker answers its own /health;
// - the queue dashboard opens in Chromium with its credentials (a screenshot in test/.artifacts/), and
//   answers 401 without them.
import type { ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { loadDeployments } from "../../adapters/chain/deployments.js";
import { API_NODE_FLAGS } from "../../api/node-flags.js";
import { QUEUE_NAMES } from "../../usecases/queues.js";
import { dropDeployment, newDeployment } from "../helpers/api-process.js";
import { createDatabase } from "../helpers/indexer.js";
import { freePort, spawnTs, stopProcess, waitFor } from "../helpers/stack.js";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.js";
import { testAccount } from "../helpers/wallets.js";
import { ARTIFACTS, CHROMIUM_LAUNCH } from "../helpers/chromium.js";

const stack = inject("stack");
const HOSTS = {
  indexer: "127.0.0.2",
  api1: "127.0.0.3",
  api2: "127.0.0.4",
  worker1: "127.0.0.5",
  worker2: "127.0.0.6",
  postgres: "127.0.0.7",
  redis: "127.0.0.8",
  chain: "127.0.0.9",
};
const USER = "operator";
const PASSWORD = "multi-host-dashboard-secret";
const LOOPBACK_ONE = /127\.0\.0\.1(?!\d)/;

const deployment = newDeployment();
const log: string[] = [];
const children: ChildProcess[] = [];
const envs: Record<string, Record<string, string>> = {};
let proxies: TcpProxy[] = [];
let database: Awaited<ReturnType<typeof createDatabase>>;
let redis: Redis;
let apiPort: number;
let workerMetricsPort: number;
let ponderPort: number;
let apiMetricsPort: number;

const apiUrl = (name: "api1" | "api2") => `http://${HOSTS[name]}:${apiPort}`;

function start(name: string, file: string, env: Record<string, string>, flags: readonly string[] = []) {
  envs[name] = env;
  // Only what this test sets: the runner's own environment carries no service setting.
  children.push(spawnTs(file, env, name, log, flags));
}

beforeAll(async () => {
  redis = new Redis(process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379");
  database = await createDatabase();
  const pg = new URL(database.url);
  const chain = new URL(stack.rpcUrl);
  proxies = await Promise.all([
    startTcpProxy(pg.hostname, Number(pg.port || 5432), undefined, HOSTS.postgres),
    startTcpProxy("127.0.0.1", 6379, undefined, HOSTS.redis),
    startTcpProxy(chain.hostname, Number(chain.port), undefined, HOSTS.chain),
  ]);
  const [pgProxy, redisProxy, chainProxy] = proxies as [TcpProxy, TcpProxy, TcpProxy];
  [apiPort, workerMetricsPort, ponderPort, apiMetricsPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const shared = {
    DATABASE_URL: `postgresql://postgres@${pgProxy.address}${pg.pathname}`,
    REDIS_URL: `redis://${redisProxy.address}`,
    RPC_URL: `http://${chainProxy.address}`,
    DEVNET_HOST: HOSTS.chain,
    DEPLOYMENTS_FILE: stack.deploymentsFile,
    DATABASE_SCHEMA: "ponder",
    VIEWS_SCHEMA: "agent_views",
    API_SCHEMA: deployment.apiSchema,
    REDIS_PREFIX: deployment.redisPrefix,
    LOG_LEVEL: "info",
  };
  start("indexer", "scripts/indexer.ts", { ...shared, PONDER_HOST: HOSTS.indexer, PONDER_PORT: String(ponderPort), INDEXER_RPC_LANES: "4" });
  // The first worker migrates the API schema; the rest find it current.
  const worker = (name: "worker1" | "worker2") =>
    start(name, "workers/main.ts", { ...shared, METRICS_HOST: HOSTS[name], WORKER_METRICS_PORT: String(workerMetricsPort), BASE_URL: apiUrl("api1") });
  worker("worker1");
  await waitFor("worker1", () => log.some((l) => l.startsWith("worker1| ") && l.includes('"worker ready"')), 120_000, log);
  worker("worker2");
  for (const name of ["api1", "api2"] as const) {
    start(
      name,
      "api/main.ts",
      {
        ...shared,
        HOST: HOSTS[name],
        PORT: String(apiPort),
        METRICS_HOST: HOSTS[name],
        METRICS_PORT: String(apiMetricsPort),
        BASE_URL: apiUrl(name),
        QUEUE_DASHBOARD_USER: USER,
        QUEUE_DASHBOARD_PASSWORD: PASSWORD,
      },
      API_NODE_FLAGS,
    );
  }
  // Ready: the index read from Postgres (through the forwarder), nothing asked of the indexer's address.
  for (const name of ["api1", "api2"] as const) {
    await waitFor(`${name} ready`, async () => (await fetch(`${apiUrl(name)}/ready`)).status === 200, 240_000, log);
  }
}, 400_000);

afterAll(async () => {
  await Promise.all(children.map((c) => stopProcess(c)));
  await Promise.all(proxies.map((p) => p.close()));
  await dropDeployment(stack, deployment, redis).catch(() => {});
  await database?.drop();
  redis?.disconnect();
});

describe("the indexer, two APIs and two workers on their own addresses", () => {
  it("are configured without 127.0.0.1, and each listens on its own address", () => {
    for (const [name, env] of Object.entries(envs)) {
      for (const [key, value] of Object.entries(env)) expect(value, `${name} ${key}`).not.toMatch(LOOPBACK_ONE);
    }
    expect(log.join("\n")).toContain(`"host":"${HOSTS.api1}","port":${apiPort}`);
    expect(log.join("\n")).toContain(`"host":"${HOSTS.worker2}","port":${workerMetricsPort}`);
  });

  it("every API answers reads, and the indexer answers on its own address", async () => {
    for (const name of ["api1", "api2"] as const) {
      const res = await fetch(`${apiUrl(name)}/v1/agent/vaults`);
      expect(res.status, name).toBe(200);
      expect(((await res.json()) as { data: unknown[] }).data.length).toBe(loadDeployments(stack.deploymentsFile).vaults.filter((v) => v.agent).length);
    }
    expect((await fetch(`http://${HOSTS.indexer}:${ponderPort}/ready`)).status).toBe(200);
  });

  it("prepares through both APIs run on the workers", async () => {
    const vault = loadDeployments(stack.deploymentsFile).vaults.find((v) => v.family === "merged")!.address;
    const owner = testAccount(0).address;
    const answers = await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const res = await fetch(`${apiUrl(i % 2 ? "api2" : "api1")}/v1/agent/prepare/vault-deposit`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ owner, vault, amount: `${20 + i}` }),
        });
        return { status: res.status, text: await res.text() };
      }),
    );
    for (const a of answers) expect(a.status, a.text.slice(0, 300)).toBe(200);
    const keys = (await redis.keys(`${deployment.redisPrefix}:bull:prepare:*`)).filter((k) => /:\d+$/.test(k));
    const ranBy = new Set((await Promise.all(keys.map((k) => redis.hget(k, "pb")))).filter(Boolean));
    const workerPids = children.filter((_, i) => Object.keys(envs)[i]?.startsWith("worker")).map((c) => c.pid);
    expect(keys.length).toBeGreaterThanOrEqual(8);
    expect(ranBy.size).toBeGreaterThan(0);
    for (const name of ranBy)
      expect(
        workerPids.some((pid) => name!.endsWith(`-${pid}`)),
        `${name} is one of ours`,
      ).toBe(true);
  });

  it("each API's metrics hold bullmq_job_count for every queue; each worker answers its own health", async () => {
    for (const name of ["api1", "api2"] as const) {
      const text = await (await fetch(`http://${HOSTS[name]}:${apiMetricsPort}/metrics`)).text();
      for (const queue of QUEUE_NAMES)
        expect(text, `${name} ${queue}`).toMatch(new RegExp(`^bullmq_job_count\\{queue="${queue}", state="waiting"\\} \\d+$`, "m"));
      expect(text.match(/^# TYPE bullmq_job_count gauge$/gm)).toHaveLength(1);
    }
    for (const name of ["worker1", "worker2"] as const) {
      const health = await fetch(`http://${HOSTS[name]}:${workerMetricsPort}/health`);
      expect(health.status, name).toBe(200);
      const metrics = await (await fetch(`http://${HOSTS[name]}:${workerMetricsPort}/metrics`)).text();
      expect(metrics).toContain('bullmq_job_count{queue="prepare"');
    }
  });

  it("the queue dashboard answers 401 without its credentials and opens in Chromium with them", async () => {
    for (const headers of [{}, { authorization: `Basic ${Buffer.from(`${USER}:wrong`).toString("base64")}` }] as Record<string, string>[]) {
      expect((await fetch(`${apiUrl("api1")}/admin/queues`, { headers })).status).toBe(401);
    }
    mkdirSync(ARTIFACTS, { recursive: true });
    const userDataDir = mkdtempSync(join(tmpdir(), "queues-chromium-"));
    const browser = await chromium.launchPersistentContext(userDataDir, {
      ...CHROMIUM_LAUNCH,
      viewport: { width: 1280, height: 900 },
      httpCredentials: { username: USER, password: PASSWORD },
    });
    try {
      const page = await browser.newPage();
      const res = await page.goto(`${apiUrl("api1")}/admin/queues`);
      expect(res?.status()).toBe(200);
      for (const queue of QUEUE_NAMES) await page.getByText(queue, { exact: true }).first().waitFor({ timeout: 20_000 });
      await page.screenshot({ path: join(ARTIFACTS, "queue-dashboard.png"), fullPage: true });
    } finally {
      await browser.close();
      rmSync(userDataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
