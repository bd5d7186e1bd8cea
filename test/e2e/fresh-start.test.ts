// Fresh start, end to end (issue 21, items 1 and 2): the whole service started as `npm start` starts it
// (scripts/start.ts: devnet, then indexer, API and worker), over a fresh database, API schema and Redis
// prefix. From the moment the API answers, the reads are polled every second:
//   - no answer is a 500; each read answers 503 UNAVAILABLE with Retry-After until the index is ready
//     (Ponder's /ready), then 200, never 503 again;
//   - GET /v1/agent/grid/tokens answers 200 within 3 minutes of Ponder's /ready, with a scan made on
//     this chain (scannedAt after this start; the stored scan names this chain's genesis hash).
// Then `npm start` again over the same database and Redis, as a user's next start: the devnet reuses its
// saved chain (DEVNET_STATE_FILE, npm start's default) and the indexer keeps its index; no read answers a 500
// and grid tokens answer 200. Then once more with DEVNET_STATE_FILE=off: a new devnet (a new genesis). The
// same holds as at the first start, and the previous chain's scan is never served.
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectRedis, deleteKeys } from "../api/support.js";
import { fetchOpenApi, responseValidator, type ResponseValidator } from "../helpers/openapi-validate.js";
import { freePort, spawnTs, stopProcess, waitFor } from "../helpers/stack.js";

const ADMIN_URL = process.env.TEST_POSTGRES_ADMIN_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const READS = ["/v1/agent/products", "/v1/agent/vaults", "/v1/tokens"];
const GRID_TOKENS = "/v1/agent/grid/tokens";
/** The bound: grid tokens answer 200 this long after the indexer's /ready. */
const SCAN_WITHIN_MS = 180_000;

type Answer = { at: number; path: string; status: number; code?: string; retryAfter: string | null; body: unknown };

let dir: string;
let redisPrefix: string | undefined;
let dbName: string;
let databaseUrl: string;
let env: Record<string, string>;
let apiUrl: string;
let ponderUrl: string;
let rpcUrl: string;
let apiSchema: string;
let start: ChildProcess | undefined;
const log: string[] = [];
let validator: ResponseValidator | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "agent-fresh-"));
  dbName = `agent_test_${randomBytes(6).toString("hex")}`;
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${dbName}"`);
  await admin.end();
  databaseUrl = Object.assign(new URL(ADMIN_URL), { pathname: `/${dbName}` }).toString();
  const [devnetPort, ponderPort, apiPort, metricsPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const tag = randomBytes(5).toString("hex");
  apiSchema = `agent_api_t${tag}`;
  apiUrl = `http://127.0.0.1:${apiPort}`;
  ponderUrl = `http://127.0.0.1:${ponderPort}`;
  rpcUrl = `http://127.0.0.1:${devnetPort}`;
  env = {
    RPC_URL: "", // the devnet, started by scripts/start.ts
    DEVNET_PORT: String(devnetPort),
    DEVNET_HISTORY_DAYS: "1",
    DEVNET_SIM_INTERVAL_MS: "2000",
    DEPLOYMENTS_FILE: join(dir, "deployments.json"),
    DATABASE_URL: databaseUrl,
    DATABASE_SCHEMA: "ponder",
    VIEWS_SCHEMA: "agent_views",
    PONDER_PORT: String(ponderPort),
    PORT: String(apiPort),
    BASE_URL: apiUrl,
    METRICS_PORT: String(metricsPort),
    API_SCHEMA: apiSchema,
    REDIS_PREFIX: (redisPrefix = `agent_test_${tag}`),
    LOG_LEVEL: "info",
    NO_COLOR: "1",
    RATE_LIMIT_POINTS: "100000", // the test polls 4 reads a second
  };
});

afterAll(async () => {
  await stopProcess(start);
  if (process.env.FRESH_START_LOG) writeFileSync(process.env.FRESH_START_LOG, log.join("\n")); // the processes' output, to read a failure
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists "${dbName}" with (force)`).catch(() => {});
  await admin.end();
  // The worker's repeatable jobs and the queues' keys of this deployment.
  if (redisPrefix) {
    const redis = await connectRedis();
    await deleteKeys(redis, redisPrefix);
    redis.disconnect();
  }
  rmSync(dir, { recursive: true, force: true });
});

async function get(path: string): Promise<Answer> {
  const at = Date.now();
  const res = await fetch(`${apiUrl}${path}`, { signal: AbortSignal.timeout(10_000) });
  const body = (await res.json().catch(() => undefined)) as { code?: string } | undefined;
  return { at, path, status: res.status, code: body?.code, retryAfter: res.headers.get("Retry-After"), body };
}

async function ponderIsReady(): Promise<boolean> {
  return (await fetch(`${ponderUrl}/ready`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined))?.status === 200;
}

async function genesis(): Promise<string> {
  const res = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getBlockByNumber", params: ["0x0", false] }),
  });
  return ((await res.json()) as { result: { hash: string } }).result.hash.toLowerCase();
}

async function storedScanChain(): Promise<string | null | undefined> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<{ chain: string | null }[]>`select chain from ${sql(apiSchema)}.scan_result where kind = 'grid-tokens' and key = 'latest'`;
    return row?.chain;
  } finally {
    await sql.end();
  }
}

/** `npm start`; polls the reads every second from the API's first answer until grid tokens answer 200. */
async function startAndPoll(extraEnv: Record<string, string> = {}) {
  const startedAt = Date.now();
  const runLog: string[] = [];
  start = spawnTs("scripts/start.ts", { ...env, ...extraEnv }, "start", runLog);
  const output = () => runLog.join("\n");
  try {
    return await poll(startedAt, runLog, output);
  } finally {
    log.push(...runLog);
  }
}

async function poll(startedAt: number, log: string[], output: () => string) {
  if (!start) throw new Error("npm start is not running");
  await waitFor("the API", async () => (await fetch(`${apiUrl}/health`, { signal: AbortSignal.timeout(1000) })).status === 200, 600_000, log);
  const answers: Answer[] = [];
  let ponderReadyAt: number | undefined;
  let gridAt: number | undefined;
  let stableSince: number | undefined;
  for (;;) {
    const tick = Date.now();
    if (ponderReadyAt === undefined && (await ponderIsReady())) ponderReadyAt = Date.now();
    const round = await Promise.all([...READS, GRID_TOKENS].map(get));
    answers.push(...round);
    const grid = round.at(-1)!;
    if (grid.status === 200 && gridAt === undefined) gridAt = grid.at;
    const readsOk = round.slice(0, READS.length).every((a) => a.status === 200);
    stableSince = readsOk ? (stableSince ?? tick) : undefined;
    // Done once grid tokens answered and the reads have answered 200 for 5 s.
    if (gridAt !== undefined && stableSince !== undefined && ponderReadyAt !== undefined && tick - stableSince >= 5000) break;
    if (ponderReadyAt !== undefined && tick - ponderReadyAt > SCAN_WITHIN_MS + 30_000) break;
    if (tick - startedAt > 900_000) break;
    if (start.exitCode !== null) throw new Error(`npm start exited:\n${log.slice(-40).join("\n")}`);
    await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (Date.now() - tick))));
  }
  return { startedAt, answers, ponderReadyAt, gridAt, output: output() };
}

/** `reused`: the devnet's saved chain and its index, so the kept index may answer before the indexer is ready again, and the last start's scan (of this chain) may be served. */
function checkRun(run: Awaited<ReturnType<typeof startAndPoll>>, label: string, { reused = false } = {}) {
  const { answers, ponderReadyAt, gridAt } = run;
  const context = `${label}: last output\n${log.slice(-30).join("\n")}`;
  expect(
    answers.filter((a) => a.status >= 500 && a.status !== 503),
    context,
  ).toEqual([]);
  expect(ponderReadyAt, context).toBeDefined();
  for (const path of READS) {
    const seen = answers.filter((a) => a.path === path);
    const firstOk = seen.findIndex((a) => a.status === 200);
    expect(firstOk, `${label} ${path} never answered 200`).toBeGreaterThanOrEqual(0);
    for (const a of seen.slice(0, firstOk)) {
      expect({ status: a.status, code: a.code }, `${label} ${path} before ready`).toEqual({ status: 503, code: "UNAVAILABLE" });
      expect(Number(a.retryAfter), `${label} ${path} Retry-After`).toBeGreaterThan(0);
    }
    // 200 from then on, never again 503; and not before Ponder's /ready (a second of polling apart).
    expect(
      seen
        .slice(firstOk)
        .filter((a) => a.status !== 200)
        .map((a) => `${a.status} ${a.code}`),
      `${label} ${path} after ready`,
    ).toEqual([]);
    // A kept index is served while the indexer catches up with the blocks since the last stop.
    if (reused) continue;
    expect(seen[firstOk]!.at, `${label} ${path} served before the index was ready`).toBeGreaterThanOrEqual(ponderReadyAt! - 3000);
    expect(seen[firstOk]!.at - ponderReadyAt!, `${label} ${path} late after ready`).toBeLessThan(10_000);
  }
  // The API answered before the index was ready (a 1-day devnet still takes the indexer a while).
  if (!reused)
    expect(
      answers.some((a) => a.status === 503 && a.code === "UNAVAILABLE"),
      `${label}: no 503 seen before ready`,
    ).toBe(true);
  // Grid tokens: 503 (UNAVAILABLE, then SCAN_PREPARING) with Retry-After until a scan of this start.
  const grid = answers.filter((a) => a.path === GRID_TOKENS);
  for (const a of grid.filter((x) => x.status !== 200)) {
    expect(a.status, label).toBe(503);
    expect(["UNAVAILABLE", "SCAN_PREPARING"], label).toContain(a.code);
    expect(Number(a.retryAfter), `${label} grid tokens Retry-After`).toBeGreaterThan(0);
  }
  expect(gridAt, `${label}: grid tokens never answered 200. ${context}`).toBeDefined();
  expect(gridAt! - ponderReadyAt!, `${label}: grid tokens late`).toBeLessThanOrEqual(SCAN_WITHIN_MS);
  for (const a of reused ? [] : grid.filter((x) => x.status === 200)) {
    const scannedAt = Date.parse((a.body as { data: { scannedAt: string } }).data.scannedAt);
    expect(scannedAt, `${label}: a scan from before this start was served`).toBeGreaterThan(run.startedAt);
  }
  // Every answer as the served document describes it (503s included).
  for (const a of answers) expect(validator!.errors("get", a.path, a.status, a.body), `${label} ${a.path} ${a.status}`).toEqual([]);
}

describe("fresh start, end to end", () => {
  let firstGenesis: string;

  it("npm start: 503 UNAVAILABLE until the index is ready, then 200; grid tokens of this chain within 3 minutes", async () => {
    const run = await startAndPoll();
    validator = responseValidator(await fetchOpenApi({ request: (path) => fetch(`${apiUrl}${path}`) }));
    checkRun(run, "first start");
    firstGenesis = await genesis();
    expect(await storedScanChain()).toBe(firstGenesis);
  }, 1_200_000);

  it("again, as a next start: the devnet's saved chain and the index are reused, and every read answers", async () => {
    await stopProcess(start);
    start = undefined;
    const run = await startAndPoll();
    expect(run.output).toMatch(/reusing the devnet saved in .*chain-state\.json \(block \d+\)/);
    expect(run.output).not.toContain("seeding history");
    expect(run.output).not.toContain("dropped the index");
    expect(await genesis()).toBe(firstGenesis);
    checkRun(run, "a reused devnet", { reused: true });
    expect(await storedScanChain()).toBe(firstGenesis);
  }, 1_200_000);

  it("again after a devnet restart (a new genesis): the previous chain's scan is never served", async () => {
    await stopProcess(start);
    start = undefined;
    const run = await startAndPoll({ DEVNET_STATE_FILE: "off" });
    expect(run.output).toContain("a new devnet: dropped the index of the previous one");
    const second = await genesis();
    expect(second).not.toBe(firstGenesis);
    checkRun(run, "after a devnet restart");
    expect(await storedScanChain()).toBe(second);
  }, 1_200_000);
});
