// What the benchmarks share: the machine, tables, processes (through the end-to-end tests' stack
// helpers), fresh databases, a devnet process and Ponder's metrics.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { type Agent, get } from "node:http";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import postgres from "postgres";
import { createDb, migrateToLatest } from "../adapters/db/connect.js";
import { createProjectionsDb, createProjectionsPostgres } from "../adapters/db/projections.js";
import { freePort, spawnTs, stopProcess, waitFor } from "../test/helpers/stack.js";

export const repoRoot = fileURLToPath(new URL("..", import.meta.url));
export const ADMIN_URL = process.env.TEST_POSTGRES_ADMIN_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

/** One figure of a benchmark; `target` and `pass` when the issue sets a target for it. */
export type Figure = { name: string; value: number | string; unit?: string; target?: string; pass?: boolean };
export type BenchResult = { name: string; figures: Figure[]; notes?: string[] };

/** True when `moduleUrl` is the script node was started with (a benchmark run alone). */
export const isMain = (moduleUrl: string) => !!process.argv[1] && pathToFileURL(process.argv[1]).href === moduleUrl;

export function machine() {
  const c = cpus();
  return {
    cores: c.length,
    cpu: c[0]?.model.trim() ?? "unknown",
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    loadAverage: loadavg()
      .map((x) => x.toFixed(2))
      .join(" "),
  };
}

export function printMachine() {
  const m = machine();
  console.log(`machine: ${m.cores} cores (${m.cpu}), ${m.memoryGiB} GiB, node ${m.node}, ${m.platform}; load average ${m.loadAverage}`);
}

export const log = (msg: string) => console.log(`[bench] ${msg}`);

export function table(rows: Record<string, string | number>[]) {
  if (rows.length === 0) return;
  const cols = Object.keys(rows[0]!);
  const cell = (v: string | number | undefined) => (v === undefined ? "" : String(v));
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (vals: string[]) =>
    `| ${vals.map((v, i) => (typeof rows[0]![cols[i]!] === "number" ? v.padStart(width[i]!) : v.padEnd(width[i]!))).join(" | ")} |`;
  console.log(line(cols));
  console.log(`|${width.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const r of rows) console.log(line(cols.map((c) => cell(r[c]))));
}

export function printResult(r: BenchResult) {
  console.log(`\n== ${r.name}`);
  table(
    r.figures.map((f) => ({
      figure: f.name,
      value: typeof f.value === "number" ? round(f.value) : f.value,
      unit: f.unit ?? "",
      target: f.target ?? "",
      result: f.pass === undefined ? "" : f.pass ? "pass" : "miss",
    })),
  );
  for (const n of r.notes ?? []) console.log(`  ${n}`);
}

/** Whole numbers from 100 up, else 3 significant digits (a CPU time per request of 0.0412 ms stays 0.0412). */
export const round = (x: number) => (Math.abs(x) >= 100 ? Math.round(x) : Number(x.toPrecision(3)));

export function saveResult(r: BenchResult) {
  const dir = join(repoRoot, "bench", "results");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${r.name}.json`), JSON.stringify({ ...r, machine: machine(), at: new Date().toISOString() }, null, 2));
}

/** The middle value (the mean of the two middle ones for an even count); NaN for none. */
export function median(xs: number[]) {
  if (xs.length === 0) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function percentile(sorted: number[], p: number) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); undefined elsewhere. */
export function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 of the line (11 and 12 after the command name and state).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

// ------------------------------------------------------------------------------------------ databases

export type Database = { url: string; name: string; drop(): Promise<void> };

export async function freshDatabase(prefix = "agent_bench"): Promise<Database> {
  const name = `${prefix}_${randomBytes(5).toString("hex")}`;
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  await admin.end();
  const url = Object.assign(new URL(ADMIN_URL), { pathname: `/${name}` }).toString();
  return {
    url,
    name,
    async drop() {
      const a = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
      await a.unsafe(`drop database if exists "${name}" with (force)`).catch(() => {});
      await a.end();
    },
  };
}

// ------------------------------------------------------------------------------------------- devnet

export type DevnetTimes = { deployS?: number; seedS?: number; readyS?: number; steps?: number; block?: number };

export type Devnet = {
  rpcUrl: string;
  port: number;
  dir: string;
  deploymentsFile: string;
  process: ChildProcess;
  log: string[];
  times: DevnetTimes;
  /** The devnet process's CPU seconds when it logged "ready". */
  cpuAtReadyS?: number;
  stop(): Promise<void>;
};

/**
 * Starts `npm run devnet` as its own process (free port, temporary deployments file) and resolves once
 * it is ready, with the times it logged. `simIntervalMs` 3_600_000 keeps the chain still once live.
 */
export async function startDevnet({
  days,
  simIntervalMs = 3_600_000,
  timeoutMs = 900_000,
}: {
  days: number;
  simIntervalMs?: number;
  timeoutMs?: number;
}): Promise<Devnet> {
  const dir = mkdtempSync(join(tmpdir(), "agent-bench-"));
  const port = await freePort();
  const deploymentsFile = join(dir, "deployments.json");
  const log: string[] = [];
  const env = {
    DEVNET_PORT: String(port),
    DEVNET_HISTORY_DAYS: String(days),
    DEVNET_SIM_INTERVAL_MS: String(simIntervalMs),
    DEPLOYMENTS_FILE: deploymentsFile,
    // Its x402 facilitator on a port of its own too: a second devnet on the machine must not share one.
    X402_FACILITATOR_PORT: String(await freePort()),
  };
  const child = spawnTs("devnet/main.ts", env, "devnet", log);
  const times: DevnetTimes = {};
  let cpuAtReadyS: number | undefined;
  // The devnet's own log lines carry its times; read them as they come.
  child.stdout!.on("data", (chunk: Buffer) => {
    for (const line of chunk.toString().split("\n")) {
      let m = /\[devnet\] deployed .*\(([\d.]+) s\)/.exec(line);
      if (m) times.deployS = Number(m[1]);
      m = /\[devnet\] seeded (\d+) steps to block (\d+) in ([\d.]+) s/.exec(line);
      if (m) [times.steps, times.block, times.seedS] = [Number(m[1]), Number(m[2]), Number(m[3])];
      m = /\[devnet\] ready in ([\d.]+) s/.exec(line);
      if (m) {
        times.readyS = Number(m[1]);
        cpuAtReadyS = cpuSeconds(child.pid);
      }
    }
  });
  const stop = async () => {
    await stopProcess(child);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor("devnet", () => existsSync(join(dir, "ready.json")) && times.readyS !== undefined, timeoutMs, log);
  } catch (err) {
    await stop();
    throw err;
  }
  return { rpcUrl: `http://127.0.0.1:${port}`, port, dir, deploymentsFile, process: child, log, times, cpuAtReadyS, stop };
}

// ------------------------------------------------------------------------------------------- ponder

/** Ponder's Prometheus metrics, parsed: name -> samples with their labels. */
export type Metrics = Map<string, { labels: Record<string, string>; value: number }[]>;

export async function ponderMetrics(ponderUrl: string): Promise<Metrics> {
  const text = await (await fetch(`${ponderUrl}/metrics`)).text();
  const out: Metrics = new Map();
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    const list = out.get(m[1]!) ?? [];
    list.push({ labels, value: Number(m[3]) });
    out.set(m[1]!, list);
  }
  return out;
}

/** The sum of a metric's samples whose labels match `where`. */
export const metricSum = (metrics: Metrics, name: string, where: Record<string, string> = {}) =>
  (metrics.get(name) ?? []).filter((s) => Object.entries(where).every(([k, v]) => s.labels[k] === v)).reduce((a, s) => a + s.value, 0);

/** Per label value of `by`: the sum of a metric's samples. */
export function metricBy(metrics: Metrics, name: string, by: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of metrics.get(name) ?? []) out.set(s.labels[by] ?? "", (out.get(s.labels[by] ?? "") ?? 0) + s.value);
  return out;
}

// ------------------------------------------------------------------------------------------ indexers

/** ours: `npm run indexer`; ours-one-lane: the same with INDEXER_RPC_LANES=1 (Ponder's per-URL rate
 *  limit as it is for one URL); baseline: bench/baseline-app (raw logs, same chain settings as ours). */
export type IndexerKind = "ours" | "ours-one-lane" | "baseline";

export type Indexer = {
  kind: IndexerKind;
  ponderUrl: string;
  db: Database;
  /** The Postgres schema it writes. */
  schema: string;
  process: ChildProcess;
  output: string[];
  /** performance.now() when the process was spawned. */
  startedAt: number;
  stop(): Promise<void>;
};

/** The views schema every benchmark's indexer publishes and its API reads (`VIEWS_SCHEMA`). */
export const BENCH_VIEWS_SCHEMA = "agent_views";

/** The schema of the API's own tables (sessions, jobs, payments: `API_SCHEMA`) in every benchmark's database. */
export const BENCH_API_SCHEMA = "agent_api";

/**
 * The API's two databases as api/main.ts makes them, over a benchmark indexer's database: its own schema
 * (migrated) and the reads pool over the views. The caller destroys both.
 */
export async function benchApiDbs(url: string) {
  const db = createDb({ url, schema: BENCH_API_SCHEMA });
  await migrateToLatest(db, BENCH_API_SCHEMA);
  const reads = createProjectionsDb({ sql: createProjectionsPostgres({ url }), viewsSchema: BENCH_VIEWS_SCHEMA });
  return { db, reads };
}

/**
 * Starts our indexer (`npm run indexer`) or the baseline app (bench/baseline-app) over the devnet,
 * into a fresh database of its own; resolves at once (see `waitReady`).
 */
export async function startIndexer(
  kind: IndexerKind,
  devnet: Pick<Devnet, "deploymentsFile" | "port">,
  extraEnv: Record<string, string> = {},
  /** `db`: index into this database (dropped by `stop`) instead of a new one; `logName`: the output file's name. */
  { db: givenDb, logName = `${kind}-indexer` }: { db?: Database; logName?: string } = {},
): Promise<Indexer> {
  const db = givenDb ?? (await freshDatabase(`agent_bench_${kind.replace(/-/g, "_")}`));
  const port = await freePort();
  const schema = kind === "baseline" ? "baseline" : "ponder";
  const output: string[] = [];
  const env = {
    DATABASE_URL: db.url,
    DATABASE_SCHEMA: schema,
    VIEWS_SCHEMA: BENCH_VIEWS_SCHEMA,
    PONDER_PORT: String(port),
    DEPLOYMENTS_FILE: devnet.deploymentsFile,
    DEVNET_PORT: String(devnet.port),
    RPC_URL: "",
    ...extraEnv,
  };
  const startedAt = performance.now();
  const server = ["--port", String(port), "--hostname", "127.0.0.1"];
  const child =
    kind === "ours"
      ? spawnTs("scripts/indexer.ts", env, "indexer", output)
      : kind === "ours-one-lane"
        ? spawnTs("scripts/indexer.ts", { ...env, INDEXER_RPC_LANES: "1" }, "indexer", output)
        : spawnPonder(kind, ["--root", join(repoRoot, "bench", "baseline-app"), "start", "--schema", schema, ...server], env, output);
  return {
    kind,
    ponderUrl: `http://127.0.0.1:${port}`,
    db,
    schema,
    process: child,
    output,
    startedAt,
    async stop() {
      await stopProcess(child);
      await db.drop();
      // Its output, for a look at what it did (bench/results/ is not committed).
      mkdirSync(join(repoRoot, "bench", "results"), { recursive: true });
      writeFileSync(join(repoRoot, "bench", "results", `${logName}.log`), `${output.join("\n")}\n`);
    },
  };
}

/** Polls Ponder's /ready every 100 ms; resolves with the seconds from spawn to ready. */
export async function waitReady(indexer: Indexer, timeoutMs = 900_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const child = indexer.process;
    if (child.exitCode !== null) throw new Error(`${indexer.kind} indexer exited (${child.exitCode}):\n${indexer.output.slice(-30).join("\n")}`);
    if (Date.now() > deadline) throw new Error(`${indexer.kind} indexer not ready after ${timeoutMs / 1000} s:\n${indexer.output.slice(-30).join("\n")}`);
    const ready = await fetch(`${indexer.ponderUrl}/ready`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) return (performance.now() - indexer.startedAt) / 1000;
    await new Promise((r) => setTimeout(r, 100));
  }
}

function spawnPonder(name: string, args: string[], env: Record<string, string>, output: string[]): ChildProcess {
  const bin = join(repoRoot, "node_modules", "ponder", "dist", "esm", "bin", "ponder.js");
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: repoRoot,
    env: { ...process.env, BASE_URL: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString().split("\n")) if (line.trim()) output.push(`${name}| ${line}`);
    if (output.length > 4000) output.splice(0, output.length - 4000);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  return child;
}

/** CPU seconds (user + system) of a process and its children (our indexer wraps `ponder start`). */
export function treeCpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const out = execFileSync("ps", ["-o", "cputimes=", "--ppid", String(pid), "-p", String(pid)], { encoding: "utf8" });
    return out
      .split("\n")
      .filter(Boolean)
      .reduce((a, l) => a + Number(l.trim()), 0);
  } catch {
    return undefined;
  }
}

// ------------------------------------------------------------------------------------------ services

export type Service = { name: string; url: string; process: ChildProcess; output: string[]; stop(): Promise<void> };

/**
 * Starts one of the service's entry points (e.g. `api/main.ts`, `workers/main.ts`) as its own process
 * with `env`, as `npm run <script>` does (node with tsx and `nodeFlags`: API_NODE_FLAGS for the API; `node`, another Node
 * executable than this process's); resolves once `readyPath` answers 200 on
 * `url` (when given), else at once.
 */
export async function startService(
  name: string,
  file: string,
  env: Record<string, string>,
  {
    url = "",
    readyPath,
    timeoutMs = 120_000,
    nodeFlags = [],
    node,
  }: { url?: string; readyPath?: string; timeoutMs?: number; nodeFlags?: readonly string[]; node?: string } = {},
): Promise<Service> {
  const output: string[] = [];
  const child = spawnTs(file, env, name, output, nodeFlags, node);
  const service = { name, url, process: child, output, stop: () => stopProcess(child) };
  if (readyPath) {
    try {
      await waitFor(
        name,
        async () => {
          if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode})`);
          return (await fetch(`${url}${readyPath}`)).status === 200;
        },
        timeoutMs,
        output,
      );
    } catch (err) {
      await service.stop();
      throw new Error(`${name} did not start: ${err instanceof Error ? err.message : String(err)}\n${output.slice(-20).join("\n")}`);
    }
  }
  return service;
}

/** Deletes every Redis key under `prefix` (a benchmark's rate-limit counters and job queues). */
export async function deleteRedisKeys(redisUrl: string, prefix: string): Promise<void> {
  const { Redis } = await import("ioredis");
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
  try {
    await redis.connect();
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== "0");
  } finally {
    redis.disconnect();
  }
}

/** GET over the pool: status and body. */
export function httpGet(agent: Agent, url: string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = get(url, { agent, headers, timeout: 60_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error("no answer in 60 s")));
    req.on("error", reject);
  });
}

/** The resident set of a process, in MiB, from /proc (Linux). */
export function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmRSS:"));
  return Number(line!.split(/\s+/)[1]) / 1024;
}

/**
 * CPU seconds of each Postgres backend serving `database` (its process title names it), or of every
 * Postgres process when it is left out, by pid: give two of these to postgresCpuSince.
 */
export function postgresCpu(database?: string, postmaster?: number): Map<number, number> {
  const byPid = new Map<number, number>();
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() !== "postgres") continue;
      if (database && !readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(` ${database} `)) continue;
      // One server of several (a primary and its standby): its postmaster's children (the 2nd field after the command name is the parent).
      if (postmaster !== undefined) {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) !== postmaster) continue;
      }
      byPid.set(Number(pid), cpuSeconds(Number(pid)) ?? 0);
    } catch {
      /* gone */
    }
  }
  return byPid;
}

/**
 * Postgres CPU seconds spent between two postgresCpu snapshots: per backend alive at the end, its time
 * since the first (all of it when it started since). A backend that exited in between (a pool closing an
 * idle connection) is left out rather than counted negative.
 */
export function postgresCpuSince(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, seconds] of after) total += Math.max(0, seconds - (before.get(pid) ?? 0));
  return total;
}

// ------------------------------------------------------------------------------ Postgres's own counters

/** Which side a backend of the bench database works for, by its application_name: Ponder names its pools `<schema>_…` and `ponder_sync`. */
export type BackendSide = "indexer" | "api";

export async function backendSides(sql: postgres.Sql, schema: string): Promise<Map<number, BackendSide>> {
  const rows = await sql<{ pid: number; app: string }[]>`
    select pid, application_name as app from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`;
  return new Map(rows.map((r) => [r.pid, r.app.startsWith(`${schema}_`) || r.app === "ponder_sync" ? "indexer" : "api"]));
}

/** postgresCpuSince, counting only the backends `keep` accepts. */
export function postgresCpuOf(before: Map<number, number>, after: Map<number, number>, keep: (pid: number) => boolean): number {
  return postgresCpuSince(before, new Map([...after].filter(([pid]) => keep(pid))));
}

export type StatementRow = {
  query: string;
  calls: number;
  totalMs: number;
  rows: number;
  toplevel: boolean;
  blksHit: number;
  blksRead: number;
  walBytes: number;
};

/**
 * pg_stat_statements in the bench database, when the server preloads it (bench/tools/counting-postgres.ts
 * starts one that does): true once the counters are reset, false when the server cannot count.
 */
export async function resetStatementCounters(sql: postgres.Sql): Promise<boolean> {
  const [row] = await sql<{ loaded: boolean }[]>`select current_setting('shared_preload_libraries') like '%pg_stat_statements%' as loaded`;
  if (!row?.loaded) return false;
  await sql`create extension if not exists pg_stat_statements`;
  await sql`select pg_stat_statements_reset()`;
  return true;
}

/** The bench database's statements since the reset, by total execution time; nested ones (triggers) included when `pg_stat_statements.track = all`. */
export async function statementCounters(sql: postgres.Sql, limit = 30): Promise<StatementRow[]> {
  const rows = await sql<{ query: string; calls: string; total: number; rows: string; toplevel: boolean; hit: string; read: string; wal: string }[]>`
    select query, calls::text, total_exec_time as total, rows::text, toplevel, shared_blks_hit::text as hit, shared_blks_read::text as read, wal_bytes::text as wal
    from pg_stat_statements s join pg_database d on d.oid = s.dbid
    where d.datname = current_database() order by total_exec_time desc limit ${limit}`;
  return rows.map((r) => ({
    query: r.query.replace(/\s+/g, " ").trim(),
    calls: Number(r.calls),
    totalMs: r.total,
    rows: Number(r.rows),
    toplevel: r.toplevel,
    blksHit: Number(r.hit),
    blksRead: Number(r.read),
    walBytes: Number(r.wal),
  }));
}
