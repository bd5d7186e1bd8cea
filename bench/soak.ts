// Issue 52: `npm run soak`. The whole service as production runs it, for SOAK_MINUTES (default 60): a devnet
// (its market and keeper on), the indexer, SOAK_APIS APIs and a worker, each under a supervisor that restarts it
// when it dies, over a Postgres and a Redis of the soak's own (so restarting them touches nothing shared) and
// an RPC proxy in front of the devnet (to stall it). Simulated users: SOAK_AGENTS polling agents (long polls and
// account reads), SOAK_TRADERS trading agents (sessions, prepares sent as plain transactions, EIP-7702 batches
// and ERC-4337 operations, cards, MCP tools, x402 backtests), SOAK_ANALYSTS analysts (GraphQL and /sql).
// Faults on a schedule (bench/soak/faults.ts), every one at least once; the invariants (bench/soak/invariants.ts)
// printed as a table at the end; the exit code is 1 when one is broken.
//
// SOAK_FAULTS: a comma list to run only some faults. SOAK_BREAK=worker-never-restarts makes one fault worse on
// purpose (the worker, once killed, stays dead) to show that the soak catches it. Logs: SOAK_DIR (default a
// new directory under /tmp), one file per process.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import postgres from "postgres";
import { createPublicClient, http, type PublicClient } from "viem";
import { API_ENV, API_NODE_FLAGS } from "../api/node-flags.js";
import type { Deployments } from "../adapters/chain/deployments.js";
import { startRedisServer } from "../test/helpers/redis-server.js";
import { startTcpProxy } from "../test/helpers/tcp-proxy.js";
import { devnetAt, testAccount } from "../test/helpers/wallets.js";
import { injectFault, faultSchedule, type FaultWindow } from "./soak/faults.js";
import { balancer } from "./soak/http.js";
import { heapCensus } from "./soak/heap-census.js";
import { redisCensus } from "./soak/redis-census.js";
import { tcpCounters, tcpDelta } from "./soak/tcp-counters.js";
import { deadlineRow, deliveryRow, errorsRow, flatRows, matchingRow, newSamples, sample, type Row } from "./soak/invariants.js";
import { createDatabaseOn, freePort, startOwnPostgres, supervise, waitFor, type Supervised } from "./soak/procs.js";
import { startAnalysts, startPollers, startTraders } from "./soak/users.js";
import { isMain, machine, printMachine, table } from "./lib.js";

const env = process.env;
const num = (name: string, fallback: number) => Number(env[name] ?? fallback);
export const soakSettings = () => ({
  minutes: num("SOAK_MINUTES", 60),
  agents: num("SOAK_AGENTS", 500),
  traders: num("SOAK_TRADERS", 20),
  analysts: num("SOAK_ANALYSTS", 3),
  apis: num("SOAK_APIS", 2),
  historyDays: num("SOAK_HISTORY_DAYS", 2),
  tradeEveryMs: num("SOAK_TRADE_EVERY_MS", 20_000),
  waitMs: num("SOAK_WAIT_MS", 25_000),
  faults: env.SOAK_FAULTS ? env.SOAK_FAULTS.split(",") : undefined,
  brk: env.SOAK_BREAK ?? "",
});
type Settings = ReturnType<typeof soakSettings>;

const t0 = Date.now();
const say = (line: string) => console.log(`[soak ${((Date.now() - t0) / 1000).toFixed(0).padStart(5)} s] ${line}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const answers200 = (url: string) =>
  fetch(url, { signal: AbortSignal.timeout(3000) }).then(
    (r) => r.status === 200,
    () => false,
  );

/** Own Postgres and Redis, the devnet, the proxy and every service under its supervisor. */
async function startAll(s: Settings, dir: string) {
  const logDir = join(dir, "logs");
  mkdirSync(logDir, { recursive: true });
  const pg = await startOwnPostgres(join(dir, "pg"));
  const dbName = "agent_soak";
  const databaseUrl = await createDatabaseOn(pg, dbName);
  const redis = await startRedisServer();
  say(`own Postgres on ${pg.port}, own Redis on ${redis.port}, logs in ${logDir}`);
  const [devnetPort, facilitatorPort, ponderPort] = [await freePort(), await freePort(), await freePort()];
  const deploymentsFile = join(dir, "deployments.json");
  const sup = { say, logDir };
  const devnet = supervise(
    "devnet",
    "devnet/main.ts",
    {
      DEVNET_PORT: String(devnetPort),
      X402_FACILITATOR_PORT: String(facilitatorPort),
      DEPLOYMENTS_FILE: deploymentsFile,
      DEVNET_HISTORY_DAYS: String(s.historyDays),
    },
    { ...sup, noRestart: () => true }, // a new devnet is a new chain: its death ends the soak
  );
  await waitFor("devnet", () => readyFile(dir), 600_000, devnet.tail);
  const rpcUrl = `http://127.0.0.1:${devnetPort}`;
  const proxy = await startTcpProxy("127.0.0.1", devnetPort);
  const redisPrefix = `soak_${randomBytes(4).toString("hex")}`;
  const common = {
    DEVNET_PORT: String(proxy.port), // the services reach the chain through the proxy (stalled on purpose)
    X402_FACILITATOR_PORT: String(facilitatorPort),
    DEPLOYMENTS_FILE: deploymentsFile,
    DATABASE_URL: databaseUrl,
    DATABASE_SCHEMA: "ponder",
    VIEWS_SCHEMA: "agent_views",
    API_SCHEMA: "agent_api",
    REDIS_URL: redis.url,
    REDIS_PREFIX: redisPrefix,
    PONDER_PORT: String(ponderPort),
    LOG_LEVEL: "info",
    RATE_LIMIT_POINTS: "10000000",
    TRUST_PROXY_HOPS: "1",
  };
  const indexer = supervise("indexer", "scripts/indexer.ts", common, sup);
  const ponderUrl = `http://127.0.0.1:${ponderPort}`;
  await waitFor("indexer", () => answers200(`${ponderUrl}/ready`), 900_000, indexer.tail);
  const apis: Supervised[] = [];
  const bases: string[] = [];
  const metricsUrls: { name: string; url: string }[] = [{ name: "indexer", url: `${ponderUrl}/metrics` }];
  for (let i = 0; i < s.apis; i++) {
    const [port, metrics] = [await freePort(), await freePort()];
    bases.push(`http://127.0.0.1:${port}`);
    metricsUrls.push({ name: `api${i + 1}`, url: `http://127.0.0.1:${metrics}/metrics` });
    const e = { ...common, ...API_ENV, PORT: String(port), BASE_URL: bases[i]!, METRICS_PORT: String(metrics) };
    apis.push(supervise(`api${i + 1}`, "api/main.ts", e, { ...sup, nodeFlags: API_NODE_FLAGS }));
  }
  const workerHealth = `http://127.0.0.1:${await freePort()}`;
  metricsUrls.push({ name: "worker", url: `${workerHealth}/metrics` });
  const worker = supervise(
    "worker",
    "workers/main.ts",
    { ...common, WORKER_METRICS_PORT: workerHealth.split(":").at(-1)! },
    {
      ...sup,
      noRestart: () => s.brk === "worker-never-restarts",
    },
  );
  const healthy = async (timeoutMs: number) => {
    // A worker left dead on purpose (SOAK_BREAK) is not waited for: the other faults go on as scheduled.
    const workerLeftDead = s.brk === "worker-never-restarts" && worker.deaths.length > 0;
    const checks = [`${ponderUrl}/ready`, ...bases.map((b) => `${b}/ready`), ...(workerLeftDead ? [] : [`${workerHealth}/health`])];
    const until = Date.now() + timeoutMs;
    while (Date.now() < until) {
      if ((await Promise.all(checks.map(answers200))).every(Boolean)) return true;
      await sleep(500);
    }
    return false;
  };
  if (!(await healthy(300_000))) throw new Error(`the service did not come up:\n${[...apis, worker].flatMap((p) => p.tail.slice(-15)).join("\n")}`);
  return { pg, dbName, databaseUrl, redis, redisPrefix, devnet, rpcUrl, proxy, indexer, apis, worker, bases, metricsUrls, ponderUrl, deploymentsFile, healthy };
}

function readyFile(dir: string): boolean {
  try {
    readFileSync(join(dir, "ready.json"));
    return true;
  } catch {
    return false;
  }
}

type Stack = Awaited<ReturnType<typeof startAll>>;

/** The run: users, samplers and the fault schedule, for the settings' minutes; then a drain and the table. */
async function soak(s: Settings, st: Stack): Promise<{ rows: Row[]; windows: FaultWindow[] }> {
  const d = JSON.parse(readFileSync(st.deploymentsFile, "utf8")) as Deployments;
  const chain = createPublicClient({ chain: devnetAt(st.rpcUrl), transport: http(st.rpcUrl), pollingInterval: 200 }) as PublicClient;
  const lb = balancer(st.bases);
  const stopUsers = new AbortController();
  say(`setting up ${s.traders} traders (accounts 40-${39 + s.traders})`);
  let mcp = 0;
  const traders = await startTraders(
    { rpcUrl: st.rpcUrl, chain, d, lb, firstAccount: 40, count: s.traders, admin: testAccount(10) },
    s.tradeEveryMs,
    stopUsers.signal,
    () => `${st.bases[mcp++ % st.bases.length]}/mcp`,
  );
  // Polling agents: most on the traders' wallets (whose feeds change), the rest on wallets that never act.
  const owners = Array.from({ length: s.agents }, (_, i) =>
    i % 5 < 3 && traders.owners.length ? traders.owners[i % traders.owners.length]! : `0x${(0xa0000 + i).toString(16).padStart(40, "0")}`,
  );
  // The polling agents stop last: after the drain, once they hold what was indexed by then (deliveryRow).
  const stopPollers = new AbortController();
  const { pollers, done: pollersDone } = startPollers(lb, owners, stopPollers.signal, s.waitMs, 60_000);
  const analysts = startAnalysts(st.ponderUrl, s.analysts, traders.owners, 5000, stopUsers.signal);
  const runMs = s.minutes * 60_000;
  const warmupMs = Math.min(runMs * 0.2, 10 * 60_000);
  const start = Date.now();
  const tcpAtStart = tcpCounters();
  say(`traffic on: ${s.agents} polling agents, ${s.traders} traders, ${s.analysts} analysts for ${s.minutes} min (warm-up ${(warmupMs / 1000).toFixed(0)} s)`);

  const monitorSql = postgres(st.databaseUrl, { max: 1, onnotice: () => {}, connection: { application_name: "soak-monitor" } });
  const monitorRedis = new Redis(st.redis.url, { maxRetriesPerRequest: 1, lazyConnect: false });
  monitorRedis.on("error", () => {});
  const samples = newSamples();
  const processes = [st.devnet, st.indexer, ...st.apis, st.worker];
  const pending = () => traders.sent.map((c) => c.txHash.toLowerCase()).filter((h) => !samples.matched.has(h));
  const sampleDeps = {
    sql: monitorSql,
    dbName: st.dbName,
    apiSchema: "agent_api",
    redis: monitorRedis,
    redisPrefix: st.redisPrefix,
    processes,
    metrics: st.metricsUrls,
    pending,
  };
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      await sample(samples, sampleDeps);
      await sleep(5000);
    }
  })();

  const tablesAtWarm = sleep(warmupMs).then(() => tableRows(monitorSql));
  // Redis's memory, by what it holds, where the memory row's last window begins (its 15% after the warm-up).
  const lastWindowMs = runMs - (runMs - warmupMs) * 0.15;
  const census = async (when: string) => {
    await redisCensus(monitorRedis, `${st.redisPrefix}:`).then(
      (line) => say(`redis at ${when}: ${line}`),
      (error: Error) => say(`redis at ${when}: no census (${error.message})`),
    );
    say(`heap at ${when}: ${await heapCensus(st.metricsUrls)}`);
  };
  const censusAtLast = sleep(lastWindowMs).then(() => census("the last window"));
  const windows: FaultWindow[] = [];
  const faultDeps = { ...st, monitorRedis, say };
  for (const f of faultSchedule(runMs, warmupMs, s.faults)) {
    const wait = start + f.at - Date.now();
    if (wait > 0) await sleep(wait);
    windows.push(await injectFault(f.name, faultDeps));
  }
  const left = start + runMs - Date.now();
  if (left > 0) await sleep(left);
  const end = Date.now();
  await censusAtLast;
  await census("the end");
  say(`tcp over the traffic: ${tcpDelta(tcpAtStart, tcpCounters())}`);
  say("traffic off; draining (every sent call matched, every agent caught up: up to 3 minutes)");
  stopUsers.abort();
  await Promise.race([traders.done, sleep(120_000)]);
  const canonical = await canonicalHashes(
    chain,
    traders.sent.map((c) => c.txHash),
  );
  await drain(samples, { ...sampleDeps, pending: () => pending().filter((h) => canonical.has(h)) });
  sampling = false;
  await sampler;

  const rows: Row[] = [
    matchingRow(traders.sent, canonical, samples, windows),
    await deliveryRow(pollers, monitorSql, "agent_views", async () => {
      stopPollers.abort();
      await Promise.race([pollersDone, sleep(s.waitMs + 15_000)]);
    }),
    errorsRow(lb, traders.unanswered, windows),
    deadlineRow(samples),
    ...flatRows(samples, { start, warmEnd: start + warmupMs, end, enforce: s.minutes >= 10, restarts: lastRestarts(processes, windows) }),
    await tablesRow(monitorSql, await tablesAtWarm, traders, pollers),
    restartsRow(processes, windows, s),
  ];
  say(
    `users: ${traders.prepares} prepares (${[...traders.refused].map(([k, n]) => `${k} ×${n}`).join(", ") || "none refused"}), ${traders.sent.length} sent, ${traders.sendFailures.length} send failures, ` +
      `${traders.cards} cards, ${traders.mcpCalls} MCP sessions (${traders.mcpFailures.length} failed), ${traders.paidBacktests} paid backtests (${traders.paidFailures.length} failed), ` +
      `${analysts.queries} analyst queries (${analysts.failures.length} failed)`,
  );
  for (const f of [...traders.sendFailures, ...traders.mcpFailures, ...traders.paidFailures, ...analysts.failures].slice(0, 10)) say(`  ${f}`);
  await monitorSql.end();
  monitorRedis.disconnect();
  return { rows, windows };
}

/** After the traffic: wait until every sent call is matched and the indexer is at the head (up to 3 minutes), then give the agents 20 s to catch up. */
async function drain(samples: ReturnType<typeof newSamples>, deps: Parameters<typeof sample>[1]) {
  const until = Date.now() + 180_000;
  while (Date.now() < until && deps.pending().length > 0) {
    await sample(samples, deps);
    await sleep(3000);
  }
}

async function canonicalHashes(chain: PublicClient, hashes: `0x${string}`[]): Promise<Set<string>> {
  const out = new Set<string>();
  for (const h of hashes) {
    const r = await chain.getTransactionReceipt({ hash: h }).catch(() => undefined);
    if (r) out.add(h.toLowerCase());
  }
  return out;
}

async function tableRows(sql: postgres.Sql): Promise<Map<string, number>> {
  const rows = await sql<{ t: string; n: number }[]>`
    select relname as t, n_live_tup::int as n from pg_stat_user_tables where schemaname = 'agent_api'`.catch(() => []);
  return new Map(rows.map((r) => [r.t, r.n]));
}

async function tablesRow(
  sql: postgres.Sql,
  atWarm: Map<string, number>,
  traders: { prepares: number; sent: unknown[] },
  pollers: { polls: number }[],
): Promise<Row> {
  await sql`analyze`.catch(() => {});
  const now = await tableRows(sql);
  const polls = pollers.reduce((a, p) => a + p.polls, 0);
  const parts = [...now]
    .filter(([, n]) => n > 0)
    .map(([t, n]) => `${t} ${atWarm.get(t) ?? 0}→${n}`)
    .join(", ");
  return {
    invariant: "the service's own tables grow only with the work done (rows per action)",
    result: "shown",
    figures: `${parts}; per prepare: filing ${((now.get("filing") ?? 0) / Math.max(1, traders.prepares)).toFixed(2)}, per 1,000 polls: activity_cursor ${(((now.get("activity_cursor") ?? 0) * 1000) / Math.max(1, polls)).toFixed(1)}`,
  };
}

/** When each process (and Redis) last came back from a death or a restart during the run. */
function lastRestarts(processes: Supervised[], windows: FaultWindow[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const p of processes) if (p.deaths.length) out.set(p.name, p.deaths.at(-1)!.at);
  for (const w of windows) {
    const service = w.name === "restart-redis" ? "redis" : w.name === "restart-postgres" ? "postgres" : undefined;
    if (service) out.set(service, Math.max(out.get(service) ?? 0, w.end));
  }
  return out;
}

function restartsRow(processes: Supervised[], windows: FaultWindow[], s: Settings): Row {
  const dead = processes.filter((p) => !p.alive());
  return {
    invariant: "every process up at the end (supervisor restarts)",
    result: dead.length === 0 ? "held" : "BROKEN",
    figures:
      `${processes.map((p) => `${p.name} ${p.deaths.length}`).join(", ")} restarts; faults: ${windows.map((w) => `${w.name} ${((w.end - w.start) / 1000).toFixed(0)} s${w.note ? ` (${w.note})` : ""}`).join(", ")}` +
      `${dead.length ? `; DOWN: ${dead.map((p) => p.name).join(", ")}` : ""}${s.brk ? `; SOAK_BREAK=${s.brk}` : ""}`,
  };
}

export async function runSoak(): Promise<number> {
  const s = soakSettings();
  const dir = env.SOAK_DIR ?? mkdtempSync(join(tmpdir(), "agent-soak-"));
  // A folder the operator names may not exist yet.
  mkdirSync(dir, { recursive: true });
  // Its Postgres runs as the postgres user (under root), which must reach its folder inside this one.
  chmodSync(dir, 0o755);
  printMachine();
  say(`settings ${JSON.stringify(s)}; directory ${dir}`);
  let st: Stack | undefined;
  // Ctrl-C or SIGTERM: the processes (each in its own group), Postgres and Redis are stopped before exiting.
  const interrupted = new Promise<number>((resolve) => {
    for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => resolve(130));
  });
  try {
    st = await Promise.race([startAll(s, dir), interrupted.then(() => undefined)]);
    if (!st) return 130;
    say("the service is up");
    const ran = await Promise.race([soak(s, st), interrupted.then(() => undefined)]);
    if (!ran) return 130;
    const { rows } = ran;
    console.log("");
    table(rows.map((r) => ({ invariant: r.invariant, result: r.result, figures: r.figures })));
    const broken = rows.filter((r) => r.result === "BROKEN");
    writeFileSync(join(dir, "result.json"), JSON.stringify({ settings: s, machine: machine(), rows, at: new Date().toISOString() }, null, 2));
    say(broken.length === 0 ? "every invariant held" : `BROKEN: ${broken.map((r) => r.invariant).join(" | ")}`);
    return broken.length === 0 ? 0 : 1;
  } finally {
    if (st) {
      await Promise.all([...st.apis, st.worker, st.indexer].map((p) => p.stop()));
      await st.devnet.stop();
      await st.proxy.close();
      await st.redis.kill();
      await st.pg.stop();
    }
    if (!env.SOAK_KEEP) rmSync(join(dir, "pg"), { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  const code = await runSoak().catch((error) => {
    console.error(error);
    return 2;
  });
  process.exit(code);
}
