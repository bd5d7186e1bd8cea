// Benchmark 4: read speed (issue 4). A devnet (1 day of history, chain kept still) indexed by our
// indexer into a fresh database `bench_read_<random>`, so the projection tables, indexes and views are
// exactly Ponder's; then ≥ 1,000,000 synthetic activity rows over ≥ 50,000 owners (increasing
// positions, consistent blocks) and a few positions per owner (vault shares, queue entries, limit
// orders, grids, ladder strategies with parts, basket tokens, all over the devnet's real vaults,
// tokens and baskets) are bulk-inserted with INSERT ... SELECT generate_series, and ANALYZEd.
// The API runs as `npm run api` does (its own process, real Postgres and Redis, reading through the
// views schema, its readiness pointed at the running indexer). autocannon drives, over loopback:
//   - GET /v1/agent/accounts/{owner}, a random owner per request;
//   - GET /v1/agent/accounts/{owner}/activity?cursor=..., a random one of `pollOwners` owners whose
//     baseline was taken through the API before 3 more changes per owner were added (each poll
//     answers those 3 changes, the same ones each time: polls are idempotent);
//   - a bare Hono app answering a constant, in its own process too (this file, with BENCH_BARE_PORT).
// Each answers req/s, p50 and p99, the ratio of each route to the bare app, and the server process's
// CPU per request (from /proc: what the ratio is made of, and less bent by a busy machine than req/s).
// Alone: `npx tsx bench/read-speed.ts` (READ_ACTIVITY_ROWS, READ_OWNERS, READ_POLL_OWNERS,
// READ_CONNECTIONS, READ_DURATION_S; READ_HOLD keeps the stack up for bench/tools/read-ab.ts;
// READ_API_NODE_FLAGS adds node flags to the API's).
import { serve } from "@hono/node-server";
import autocannon from "autocannon";
import { writeFileSync } from "node:fs";
import { Hono } from "hono";
import postgres from "postgres";
import { getAddress } from "viem";
import { API_NODE_FLAGS } from "../api/node-flags.js";
import type { Deployments } from "../adapters/chain/deployments.js";
import { responseValidator, type OpenApiDocument } from "../test/helpers/openapi-validate.js";
import { freePort, readJson } from "../test/helpers/stack.js";
import {
  cpuSeconds,
  deleteRedisKeys,
  postgresCpu,
  postgresCpuSince,
  freshDatabase,
  isMain,
  log,
  printMachine,
  printResult,
  saveResult,
  startDevnet,
  startIndexer,
  startService,
  waitReady,
  type BenchResult,
  type Database,
  type Devnet,
  type Figure,
  type Indexer,
  type Service,
  BENCH_VIEWS_SCHEMA,
  BENCH_API_SCHEMA,
  median,
} from "./lib.js";

export const READ_RPS_TARGET = 5000;
export const READ_P99_TARGET_MS = 20;
export const READ_RATIO_TARGET = 0.3;
/** The Postgres path's ratio to the bare route (issue 23): 5,000 req/s against ~50,000. */
export const UNCACHED_RATIO_TARGET = 0.1;
const REDIS_URL = process.env.REDIS_URL || "redis://127.0.0.1:6379";
/** Set, this module serves the bare Hono app on that port instead of running the benchmark. */
const BARE_PORT_ENV = "BENCH_BARE_PORT";
/** New changes per polled owner after its baseline: what each poll answers. */
const NEW_CHANGES = 3;

export type ReadSpeedOptions = {
  activityRows?: number;
  owners?: number;
  /** Owners whose activity is polled with a cursor (each gets a baseline first). */
  pollOwners?: number;
  connections?: number;
  durationS?: number;
  warmUpS?: number;
};

type Drive = {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  total: number;
  non2xx: number;
  errors: number;
  cpuMsPerRequest?: number;
  hitRate?: number;
  /** Postgres's CPU (the bench database's backends) and transactions on that database, per request. */
  pgCpuMsPerRequest?: number;
  pgTxPerRequest?: number;
};

/** The median of each figure over the rounds (errors summed). */
function medianDrive(runs: Drive[]): Drive {
  const of = (pick: (d: Drive) => number | undefined) => {
    const xs = runs.map(pick).filter((x): x is number => x !== undefined);
    return xs.length ? median(xs) : undefined;
  };
  return {
    name: runs[0]!.name,
    rps: of((d) => d.rps)!,
    p50: of((d) => d.p50)!,
    p99: of((d) => d.p99)!,
    total: runs.reduce((n, d) => n + d.total, 0),
    non2xx: runs.reduce((n, d) => n + d.non2xx, 0),
    errors: runs.reduce((n, d) => n + d.errors, 0),
    cpuMsPerRequest: of((d) => d.cpuMsPerRequest),
    hitRate: of((d) => d.hitRate),
    pgCpuMsPerRequest: of((d) => d.pgCpuMsPerRequest),
    pgTxPerRequest: of((d) => d.pgTxPerRequest),
  };
}

/** The cached API's read-cache answers of `route` so far, by result (from its /metrics). */
export async function cacheCounts(metricsUrl: string, route: string): Promise<{ hit: number; miss: number; bypass: number }> {
  const text = await (await fetch(metricsUrl)).text();
  const count = (result: string) => Number(new RegExp(`^api_read_cache_total\\{route="${route}",result="${result}"\\} (\\d+)`, "m").exec(text)?.[1] ?? 0);
  return { hit: count("hit"), miss: count("miss"), bypass: count("bypass") };
}

export async function benchReadSpeed({
  activityRows = 1_000_000,
  owners = 50_000,
  pollOwners = 10_000,
  connections = 64,
  durationS = 12,
  warmUpS = 3,
}: ReadSpeedOptions = {}): Promise<BenchResult> {
  const started = performance.now();
  const db = await freshDatabase("bench_read");
  const redisPrefix = db.name;
  log(`read-speed: database ${db.name}; devnet (1 day of history) and our indexer`);
  const devnet = await startDevnet({ days: 1 });
  const services: Service[] = [];
  let indexer: Awaited<ReturnType<typeof startIndexer>> | undefined;
  let stats: postgres.Sql | undefined;
  try {
    indexer = await startIndexer("ours", devnet, {}, { db, logName: "read-speed-indexer" });
    const readyS = await waitReady(indexer);
    log(`indexer ready in ${readyS.toFixed(1)} s; loading ${activityRows.toLocaleString("en")} activity rows over ${owners.toLocaleString("en")} owners`);
    const d = readJson<Deployments>(devnet.deploymentsFile);
    const sql = postgres(db.url, { max: 1, onnotice: () => {} });
    stats = postgres(db.url, { max: 1, onnotice: () => {} });
    let load: { seconds: number; rows: number; owners: number; positions: Record<string, number> };
    let ownerList: string[];
    try {
      load = await loadSyntheticRows(sql, indexer.schema, d, { activityRows, owners });
      ownerList = (await sql<{ owner: string }[]>`select owner from bench_owner order by n`).map((r) => getAddress(r.owner));
    } catch (err) {
      await sql.end();
      throw err;
    }
    log(
      `loaded in ${load.seconds.toFixed(1)} s: ${load.rows.toLocaleString("en")} activity rows, ${load.owners.toLocaleString("en")} owners; ${JSON.stringify(load.positions)}`,
    );

    // The stack the API reads (and, with READ_HOLD, what bench/tools/read-ab.ts starts its variants on).
    const stack = readStackOf(db, indexer, devnet, redisPrefix);
    // Profiling the API alone: READ_API_NODE_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/prof" (not allowed in NODE_OPTIONS).
    // Two APIs over the same stack: the one agents meet after a restart or for an owner that just changed
    // (the cache off: every answer from Postgres), and the shipped one (the cache on), each with its metrics.
    const nodeFlags = (process.env.READ_API_NODE_FLAGS ?? "").split(" ").filter(Boolean);
    const uncached = await startReadApi(stack, { nodeFlags, env: { READ_CACHE_ENTRIES: "0", METRICS_PORT: String(await freePort()) } });
    services.push(uncached);
    const apiMetricsPort = await freePort();
    const api = await startReadApi(stack, { nodeFlags, env: { METRICS_PORT: String(apiMetricsPort) } });
    services.push(api);
    const cacheMetrics = `http://127.0.0.1:${apiMetricsPort}/metrics`;
    const barePort = await freePort();
    const bare = await startService(
      "bare-hono",
      "bench/read-speed.ts",
      { [BARE_PORT_ENV]: String(barePort) },
      { url: `http://127.0.0.1:${barePort}`, readyPath: "/" },
    );
    services.push(bare);

    // Baselines through the API for the polled owners, then 3 new changes each.
    const polled = sample(ownerList, Math.min(pollOwners, ownerList.length));
    log(`taking ${polled.length.toLocaleString("en")} activity baselines through the API`);
    const cursors = await mapConcurrent(polled, 32, async (owner) => {
      const res = await fetch(`${api.url}/v1/agent/accounts/${owner}/activity`, { headers: clientHeaders(`/${owner}`) });
      const body = (await res.json()) as { data?: { cursor: string } };
      if (res.status !== 200 || !body.data) throw new Error(`baseline of ${owner}: ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
      return { owner, cursor: body.data.cursor };
    });
    try {
      await addChanges(sql, indexer.schema, polled, d);
    } finally {
      await sql.end();
    }

    // Answers first: real content, valid against the served OpenAPI document.
    const doc = (await (await fetch(`${api.url}/v1/agent/openapi.json`)).json()) as OpenApiDocument;
    const validator = responseValidator(doc);
    const checked = await checkAnswers(api.url, validator, sample(ownerList, 20), sample(cursors, 20));
    log(`answers checked: ${checked}`);

    // Agents poll all day, so the figures are of a warm API: first every polled cursor (and, for
    // accounts, every owner) is read once, at `connections` concurrency; that first pass is timed
    // and printed as the cold figure.
    const colds: Figure[] = [];
    const warm = async (name: string, paths: string[]) => {
      const t0 = performance.now();
      let failed = 0;
      await mapConcurrent(paths, connections, async (path) => {
        const res = await fetch(api.url + path, { headers: clientHeaders(path) });
        await res.arrayBuffer();
        if (res.status !== 200) failed++;
      });
      const seconds = (performance.now() - t0) / 1000;
      log(`${name}, cold (each read once): ${paths.length} in ${seconds.toFixed(1)} s, ${Math.round(paths.length / seconds)} req/s, ${failed} not 200`);
      colds.push({ name: `${name}, cold (each once): req/s`, value: paths.length / seconds, unit: "req/s" });
      if (failed > 0) throw new Error(`${name}: ${failed} cold reads not 200`);
    };
    const only = (process.env.READ_TARGETS ?? "").split(",").filter(Boolean);
    const wanted = (name: string) => only.length === 0 || only.some((o) => name.includes(o));
    if (wanted("accounts"))
      await warm(
        "GET accounts/{owner}",
        ownerList.map((o) => `/v1/agent/accounts/${o}`),
      );
    if (wanted("activity"))
      await warm(
        "GET activity?cursor",
        cursors.map((c) => `/v1/agent/accounts/${c.owner}/activity?cursor=${c.cursor}`),
      );

    const accountPath = () => `/v1/agent/accounts/${ownerList[Math.floor(Math.random() * ownerList.length)]}`;
    const activityPath = () => {
      const c = cursors[Math.floor(Math.random() * cursors.length)]!;
      return `/v1/agent/accounts/${c.owner}/activity?cursor=${c.cursor}`;
    };
    type Target = { name: string; url: string; path: () => string; pid?: number; route?: "accounts" | "activity" };
    const targets: Target[] = [
      { name: "bare Hono (constant)", url: bare.url, path: () => "/", pid: bare.process.pid },
      { name: "GET accounts/{owner}, uncached", url: uncached.url, path: accountPath, pid: uncached.process.pid },
      { name: "GET activity?cursor, uncached", url: uncached.url, path: activityPath, pid: uncached.process.pid },
      { name: "GET accounts/{owner}, cached", url: api.url, path: accountPath, pid: api.process.pid, route: "accounts" },
      { name: "GET activity?cursor, cached", url: api.url, path: activityPath, pid: api.process.pid, route: "activity" },
    ];
    // READ_TARGETS=activity (a comma list of substrings) drives only those routes besides the bare app.
    const chosen = targets.filter((t, i) => i === 0 || wanted(t.name));
    // Each comparison in both orders: odd rounds forwards, even rounds backwards; the medians are reported.
    const rounds = Number(process.env.READ_ROUNDS ?? 3);
    log(`driving each for ${warmUpS} s (warm-up, not counted) then ${durationS} s, ${connections} connections; ${rounds} rounds, alternating the order`);
    const runs = new Map<string, Drive[]>(chosen.map((t) => [t.name, []]));
    // Transactions on the bench database (each read statement is one; pg_stat_database, flushed by
    // backends about once a second, so a drive of several seconds counts them closely).
    const counter = stats!;
    const transactions = async () =>
      Number((await counter<{ n: string }[]>`select (xact_commit + xact_rollback)::text as n from pg_stat_database where datname = current_database()`)[0]!.n);
    for (let round = 0; round < rounds; round++) {
      for (const t of round % 2 === 0 ? chosen : [...chosen].reverse()) {
        await drive(t.name, t.url, t.path, connections, warmUpS);
        const cpu0 = cpuSeconds(t.pid);
        const cache0 = t.route ? await cacheCounts(cacheMetrics, t.route) : undefined;
        const [pg0, tx0] = [postgresCpu(db.name), await transactions()];
        const r = await drive(t.name, t.url, t.path, connections, durationS);
        const cpu1 = cpuSeconds(t.pid);
        const [pg1, tx1] = [postgresCpu(db.name), await transactions()];
        if (r.total > 0) {
          r.pgCpuMsPerRequest = (postgresCpuSince(pg0, pg1) * 1000) / r.total;
          r.pgTxPerRequest = (tx1 - tx0 - 1) / r.total; // less the counting query's own
        }
        // The server process's CPU per answer: what the ratio is made of, and less bent by a busy machine than req/s.
        if (cpu0 !== undefined && cpu1 !== undefined && r.total > 0) r.cpuMsPerRequest = ((cpu1 - cpu0) * 1000) / r.total;
        if (cache0) {
          const cache1 = await cacheCounts(cacheMetrics, t.route!);
          const answered = cache1.hit + cache1.miss + cache1.bypass - (cache0.hit + cache0.miss + cache0.bypass);
          r.hitRate = answered > 0 ? (cache1.hit - cache0.hit) / answered : undefined;
        }
        log(
          `round ${round + 1}, ${r.name}: ${Math.round(r.rps)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms (${r.total} requests, ${r.non2xx} not 2xx, ${r.errors} errors; server CPU ${r.cpuMsPerRequest?.toFixed(3)} ms per request${r.hitRate === undefined ? "" : `; cache hit rate ${(r.hitRate * 100).toFixed(1)}%`})`,
        );
        runs.get(t.name)!.push(r);
      }
    }
    const drives = chosen.map((t) => medianDrive(runs.get(t.name)!));

    // READ_HOLD=FILE keeps the stack up after the drives, for bench/tools/read-ab.ts: its settings,
    // owners and cursors go to FILE, and the run goes on (and cleans up) at SIGUSR2.
    if (process.env.READ_HOLD) {
      const hold: ReadHold = { stack, owners: ownerList, cursors, bare: bare.url };
      writeFileSync(process.env.READ_HOLD, JSON.stringify(hold));
      log(`holding the stack (settings in ${process.env.READ_HOLD}); kill -USR2 ${process.pid} to finish`);
      await new Promise<void>((resolve) => process.once("SIGUSR2", () => resolve()));
    }
    const [bareDrive, ...routes] = drives as [Drive, ...Drive[]];
    const figures: Figure[] = [
      { name: "activity rows", value: load.rows },
      { name: "owners", value: load.owners },
      { name: "load (insert + index + analyze)", value: load.seconds, unit: "s" },
      { name: `${bareDrive.name}: req/s`, value: bareDrive.rps, unit: "req/s" },
      { name: `${bareDrive.name}: p50 / p99`, value: `${bareDrive.p50} / ${bareDrive.p99}`, unit: "ms" },
      { name: `${bareDrive.name}: server CPU per request`, value: bareDrive.cpuMsPerRequest ?? "n/a", unit: "ms" },
      ...colds,
    ];
    // The uncached rows lead (the path an agent meets after a restart, or for an owner whose rows just
    // changed); the cached ones follow, labelled, with their hit rate.
    for (const r of routes) {
      const ratio = r.rps / bareDrive.rps;
      const cachedRow = r.hitRate !== undefined;
      figures.push(
        { name: `${r.name}: req/s`, value: r.rps, unit: "req/s", target: `≥ ${READ_RPS_TARGET}`, pass: r.rps >= READ_RPS_TARGET },
        { name: `${r.name}: p50`, value: r.p50, unit: "ms" },
        { name: `${r.name}: p99`, value: r.p99, unit: "ms", target: `< ${READ_P99_TARGET_MS} ms`, pass: r.p99 < READ_P99_TARGET_MS },
        cachedRow
          ? { name: `${r.name}: ratio to bare Hono`, value: ratio, target: `≥ ${READ_RATIO_TARGET}`, pass: ratio >= READ_RATIO_TARGET }
          : { name: `${r.name}: ratio to bare Hono`, value: ratio, target: `≥ ${UNCACHED_RATIO_TARGET}`, pass: ratio >= UNCACHED_RATIO_TARGET },
        { name: `${r.name}: API CPU per request`, value: r.cpuMsPerRequest ?? "n/a", unit: "ms" },
        { name: `${r.name}: Postgres CPU per request`, value: r.pgCpuMsPerRequest ?? "n/a", unit: "ms" },
        { name: `${r.name}: Postgres transactions per request`, value: r.pgTxPerRequest ?? "n/a" },
      );
      if (cachedRow) figures.push({ name: `${r.name}: cache hit rate`, value: `${(r.hitRate! * 100).toFixed(1)}%` });
      if (r.non2xx > 0 || r.errors > 0) figures.push({ name: `${r.name}: not 2xx / errors`, value: `${r.non2xx} / ${r.errors}` });
    }
    return {
      name: "read-speed",
      figures,
      notes: [
        `autocannon ${connections} connections, ${durationS} s each after ${warmUpS} s of warm-up, loopback; load generator, APIs, bare app and Postgres share the machine's cores`,
        `medians of ${rounds} rounds, the order of the drives reversed every other round; "uncached" is an API with READ_CACHE_ENTRIES=0 (every answer from Postgres), "cached" the shipped one after the cold pass`,
        `API as \`npm run api\` (LOG_LEVEL=warn; rate limit as shipped: 120/min per client; each owner's reads come from a client of its own (X-Forwarded-For, TRUST_PROXY_HOPS=1), and requests spread over ${ownerList.length.toLocaleString("en")} owners / ${cursors.length.toLocaleString("en")} polled owners stay under it)`,
        `each poll answers ${NEW_CHANGES} changes; answers checked against the served OpenAPI document: ${checked}`,
        `whole benchmark ${Math.round((performance.now() - started) / 1000)} s`,
      ],
    };
  } finally {
    await stats?.end().catch(() => {});
    for (const s of services.reverse()) await s.stop();
    await indexer?.stop(); // drops the database
    await db.drop();
    await devnet.stop();
    await deleteRedisKeys(REDIS_URL, redisPrefix).catch(() => {});
  }
}

/** What a read-speed API needs of its stack: database, indexer, devnet and Redis prefix. */
export type ReadStack = Record<"DATABASE_URL" | "DATABASE_SCHEMA" | "PONDER_PORT" | "DEPLOYMENTS_FILE" | "DEVNET_PORT" | "REDIS_PREFIX", string>;
/** The stack of a database, the indexer writing it and its devnet, with a Redis prefix of its own. */
export const readStackOf = (db: Database, indexer: Indexer, devnet: Devnet, redisPrefix: string): ReadStack => ({
  DATABASE_URL: db.url,
  DATABASE_SCHEMA: indexer.schema,
  PONDER_PORT: new URL(indexer.ponderUrl).port,
  DEPLOYMENTS_FILE: devnet.deploymentsFile,
  DEVNET_PORT: String(devnet.port),
  REDIS_PREFIX: redisPrefix,
});
/** What READ_HOLD writes for bench/tools/read-ab.ts. */
export type ReadHold = { stack: ReadStack; owners: string[]; cursors: { owner: string; cursor: string }[]; bare: string };

/**
 * The API on `stack` as `npm run api` runs it (its own process with API_NODE_FLAGS, then `nodeFlags`,
 * which win where they repeat one), on a free port; its /ready asks the running indexer's /ready.
 * `file` may be another checkout's api/main.ts; `env` adds or overrides settings.
 */
export async function startReadApi(
  stack: ReadStack,
  { file = "api/main.ts", nodeFlags = [], env = {}, node }: { file?: string; nodeFlags?: readonly string[]; env?: Record<string, string>; node?: string } = {},
): Promise<Service> {
  const port = await freePort();
  return startService(
    "api",
    file,
    {
      ...stack,
      VIEWS_SCHEMA: BENCH_VIEWS_SCHEMA,
      API_SCHEMA: BENCH_API_SCHEMA,
      PORT: String(port),
      HOST: "127.0.0.1",
      RPC_URL: "",
      REDIS_URL,
      // One request line per request at `info`; the figures are of the read path, not of stdout.
      LOG_LEVEL: "warn",
      // Each owner's reads come from a client of its own (clientHeaders): one proxy hop is trusted.
      TRUST_PROXY_HOPS: "1",
      ...env,
    },
    { url: `http://127.0.0.1:${port}`, readyPath: "/ready", nodeFlags: [...API_NODE_FLAGS, ...nodeFlags], node },
  );
}

/**
 * Who sends a request: each owner's reads come from a client of their own (an X-Forwarded-For address
 * derived from the owner, read by the API behind TRUST_PROXY_HOPS=1), as each agent is its own client in
 * production; the rate limit keys on the client, so one load generator must not look like one client.
 */
export function clientHeaders(path: string): Record<string, string> {
  const owner = /\/(0x[0-9a-fA-F]{40})/.exec(path)?.[1];
  if (!owner) return {};
  const n = Number.parseInt(owner.slice(2, 8), 16);
  return { "x-forwarded-for": `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` };
}

export async function drive(name: string, url: string, path: () => string, connections: number, durationS: number): Promise<Drive> {
  const result = await autocannon({
    url,
    connections,
    duration: durationS,
    requests: [
      {
        method: "GET",
        setupRequest: (request) => {
          const p = path();
          return { ...request, path: p, headers: { ...request.headers, ...clientHeaders(p) } };
        },
      },
    ],
  });
  return {
    name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

/** A few answers of each route: 200, with real content, and valid against the OpenAPI document. */
async function checkAnswers(
  base: string,
  validator: ReturnType<typeof responseValidator>,
  owners: string[],
  cursors: { owner: string; cursor: string }[],
): Promise<string> {
  let positions = 0;
  for (const owner of owners) {
    const path = `/v1/agent/accounts/${owner}`;
    const res = await fetch(base + path, { headers: clientHeaders(path) });
    const body = (await res.json()) as {
      data: {
        vaults: unknown[];
        limitOrders: unknown[];
        depositRequests: unknown[];
        grids: unknown[];
        ladderStrategies: unknown[];
        baskets: unknown[];
        withdrawalRequests: unknown[];
      };
    };
    const errors = validator.errors("get", path, res.status, body);
    if (res.status !== 200 || errors.length) throw new Error(`${path}: ${res.status} ${errors.join("; ")}`);
    const a = body.data;
    if (a.vaults.length === 0 || a.limitOrders.length === 0) throw new Error(`${path}: no positions (${JSON.stringify(a).slice(0, 300)})`);
    positions +=
      a.vaults.length +
      a.limitOrders.length +
      a.depositRequests.length +
      a.withdrawalRequests.length +
      a.grids.length +
      a.ladderStrategies.length +
      a.baskets.length;
  }
  for (const { owner, cursor } of cursors) {
    const path = `/v1/agent/accounts/${owner}/activity?cursor=${cursor}`;
    const res = await fetch(base + path, { headers: clientHeaders(path) });
    const body = (await res.json()) as { data: { changes: unknown[] } };
    const errors = validator.errors("get", path, res.status, body);
    if (res.status !== 200 || errors.length) throw new Error(`${path}: ${res.status} ${errors.join("; ")}`);
    if (body.data.changes.length !== NEW_CHANGES) throw new Error(`${path}: ${body.data.changes.length} changes, expected ${NEW_CHANGES}`);
  }
  return `${owners.length} accounts (${(positions / owners.length).toFixed(1)} items each), ${cursors.length} polls (${NEW_CHANGES} changes each): valid`;
}

// ------------------------------------------------------------------------------------------ the data

const HEX = /^0x[0-9a-fA-F]{40}$/;
const addressArray = (list: string[]) => {
  for (const a of list) if (!HEX.test(a)) throw new Error(`not an address: ${a}`);
  return `array[${list.map((a) => `'${a.toLowerCase()}'`).join(",")}]::text[]`;
};

/**
 * Synthetic rows in the indexer's own tables (schema `schema`), written the way the indexer writes
 * them (lowercase addresses, base units, unix seconds), over the devnet's real vaults, tokens and
 * baskets. Ponder's live-mode triggers (reorg log, live queries) are skipped for this session: the
 * rows are not chain data, and no reorg may revert them.
 */
export async function loadSyntheticRows(
  sql: postgres.Sql,
  schema: string,
  d: Deployments,
  { activityRows, owners, firstOwner = 0 }: { activityRows: number; owners: number; firstOwner?: number },
) {
  const t0 = performance.now();
  const s = `"${schema}"`;
  const now = Math.floor(Date.now() / 1000);
  const vaults = d.vaults.filter((v) => v.family !== "stock-token");
  const merged = d.vaults.filter((v) => v.family === "merged");
  const up = d.vaults.filter((v) => v.family === "up");
  const tokens = d.tokens.filter((t) => t.pool).map((t) => t.address);
  const baskets = d.baskets.map((b) => b.address);
  const contracts = [d.contracts.limitOrderHook!, d.contracts.gridStrategy!, d.contracts.ladderStrategy!, ...vaults.map((v) => v.address)];
  // Deposit queues: merged vaults queue inside the vault, up vaults in their deposit queue; withdrawals:
  // merged redeem queues, up withdrawal queues.
  const depositQueues = [...merged.map((v) => [v.address, v.address]), ...up.filter((v) => v.depositQueue).map((v) => [v.address, v.depositQueue!])];
  const withdrawalQueues = [
    ...merged.filter((v) => v.redeemQueue).map((v) => [v.address, v.redeemQueue!]),
    ...up.filter((v) => v.withdrawalQueue).map((v) => [v.address, v.withdrawalQueue!]),
  ];
  const top = (await sql<{ top: string | null }[]>`select max(block_number)::text as top from ${sql(schema)}.activity`)[0]?.top;
  const base = BigInt(top ?? "0") + 1000n;
  const span = 60 * 86400; // the rows' times spread over 60 days up to now

  await sql.unsafe(`set session_replication_role = replica`);
  await sql.unsafe(`set maintenance_work_mem = '256MB'`);
  // Owners n = firstOwner .. owners - 1 (a later call on the same session adds owners to the earlier ones).
  const n0 = firstOwner;
  const added = owners - n0;
  await sql.unsafe(`create temp table if not exists bench_owner (n int primary key, owner text not null)`);
  await sql.unsafe(`
    insert into bench_owner
    select n, '0x' || substr(md5('bench-owner-' || n), 1, 32) || lpad(to_hex(n), 8, '0') as owner
    from generate_series(${n0}, ${owners - 1}) n`);
  await sql.unsafe(`create temp view new_owner as select * from bench_owner where n >= ${n0}`);

  // Activity: 10 changes per block, owner i % owners, so an owner's changes spread over the history.
  await sql.unsafe(`
    insert into ${s}.activity (owner, position, kind, subject, contract, data, tx_hash, block_number, block_hash, log_index, timestamp)
    select o.owner,
           (${base}::bigint + i / 10) * 1000000 + (i % 10) * 10,
           (array['vault.shares','order.created','order.filled','grid.traded','basket.balance','vault.deposit.requested'])[1 + i % 6],
           case when i % 6 in (0, 5) then (${addressArray(vaults.map((v) => v.address))})[1 + i % ${vaults.length}] else (1000000000 + i)::text end,
           (${addressArray(contracts)})[1 + i % ${contracts.length}],
           json_build_object('amount', ((i::bigint * 7919) % 1000000000000)::text, 'token', (${addressArray(tokens)})[1 + i % ${tokens.length}], 'owner', o.owner),
           '0x' || md5('tx-' || i) || md5('tx2-' || i),
           ${base} + i / 10,
           '0x' || md5('block-' || (${base} + i / 10)) || md5('hash-' || (${base} + i / 10)),
           i % 10,
           ${now - span} + (i::bigint * ${span} / ${activityRows})::int
    from generate_series(0, ${activityRows - 1}) i
    join bench_owner o on o.n = ${n0} + i % ${added}`);

  // Positions: 1-3 vaults per owner, half of them a queued deposit, a third a queued withdrawal, 2 limit
  // orders each (one open, one closed recently or long ago), a quarter a grid, a fifth a ladder with 3
  // parts, a third a basket. Ids start at 1e9, far above the devnet's own.
  await sql.unsafe(`
    insert into ${s}.vault_position (vault, owner, shares, updated_at)
    select (${addressArray(vaults.map((v) => v.address))})[1 + (n + k) % ${vaults.length}], owner, 1000000000000 + (n::bigint * 7919 + k) % 1000000000000000, ${now} - n % 86400
    from new_owner cross join generate_series(0, 2) k where k <= n % 3`);
  const qv = (pairs: string[][]) => addressArray(pairs.map((p) => p[0]!));
  const qq = (pairs: string[][]) => addressArray(pairs.map((p) => p[1]!));
  await sql.unsafe(`
    insert into ${s}.deposit_request (queue, id, vault, owner, receiver, assets, min_shares, state, shares, requested_at, updated_at)
    select (${qq(depositQueues)})[1 + n % ${depositQueues.length}], 1000000000 + n, (${qv(depositQueues)})[1 + n % ${depositQueues.length}], owner, owner,
           100000000 + n, 99000000000000 + n, case when n % 4 = 0 then 'pending' else 'settled' end, case when n % 4 = 0 then null else 100000000000000 + n end,
           ${now} - 3600 - n % 86400, ${now} - n % 86400
    from new_owner where n % 2 = 0`);
  await sql.unsafe(`
    insert into ${s}.withdrawal_request (queue, id, vault, owner, receiver, shares, min_assets_out, state, assets, requested_at, updated_at)
    select (${qq(withdrawalQueues)})[1 + n % ${withdrawalQueues.length}], 1000000000 + n, (${qv(withdrawalQueues)})[1 + n % ${withdrawalQueues.length}], owner, owner,
           50000000000000 + n, 49000000 + n, case when n % 2 = 0 then 'pending' else 'completed' end, case when n % 2 = 0 then null else 50000000 + n end,
           ${now} - 7200 - n % 86400, ${now} - n % 86400
    from new_owner where n % 3 = 0`);
  await sql.unsafe(`
    insert into ${s}.limit_order (id, owner, token, sell_token, market, amount_in, price_x_18, filled_in, filled_out, commission, remaining, owed0, owed1, claimed0, claimed1, state, close_reason, created_at, updated_at)
    select 1000000000 + n * 3 + k, owner, (${addressArray(tokens)})[1 + (n + k) % ${tokens.length}], k = 1, false, 600000000, 1500000000000000000000 + n,
           case when k = 0 then 0 else 600000000 end, case when k = 0 then 0 else 400000000000000000 end, case when k = 0 then 0 else 600000 end,
           case when k = 0 then 600000000 else 0 end, 0, 0, case when k = 0 then 0 else 400000000000000000 end, 0,
           case when k = 0 then 'open' else 'closed' end, case when k = 0 then null else 'filled' end,
           ${now} - 86400 * (1 + k * 5) - n % 3600, ${now} - 86400 * (k * k * 5) - n % 3600
    from new_owner cross join generate_series(0, 2) k`);
  await sql.unsafe(`
    insert into ${s}.grid (id, owner, token, buy_price_x_18, sell_price_x_18, amount_usdg, repeat, state, usdg, tokens, holds_token, cost_usdg, trades, round_trips, fees, collected, created_at, updated_at)
    select 1000000000 + n, owner, (${addressArray(tokens)})[1 + n % ${tokens.length}], 1400000000000000000000, 1600000000000000000000, 20000000, true, 'open',
           20000000, 0, false, 0, n % 7, n % 3, 1000 * (n % 7), 0, ${now} - 86400 * 3, ${now} - n % 86400
    from new_owner where n % 4 = 1`);
  await sql.unsafe(`
    insert into ${s}.ladder (id, owner, token, legs, sell_first, repeat, one_way, total, state, repeat_mask, trades, fees, collected_token, collected_usdg, created_at, updated_at)
    select 1000000000 + n, owner, (${addressArray(tokens)})[1 + n % ${tokens.length}], 3, false, true, false, 60000000, 'open', 3, n % 5, 100 * (n % 5), 0, 0,
           ${now} - 86400 * 2, ${now} - n % 86400
    from new_owner where n % 5 = 2`);
  await sql.unsafe(`
    insert into ${s}.ladder_leg (ladder_id, leg, buy_price_x_18, sell_price_x_18, amount, usdg, tokens, holds_token, trades, finished)
    select 1000000000 + n, leg, 1500000000000000000000 - leg * 10000000000000000000, 1600000000000000000000 - leg * 10000000000000000000, 20000000, 20000000, 0, false, 0, false
    from new_owner cross join generate_series(0, 2) leg where n % 5 = 2`);
  if (baskets.length)
    await sql.unsafe(`
      insert into ${s}.basket_balance (basket, owner, balance, updated_at)
      select (${addressArray(baskets)})[1 + n % ${baskets.length}], owner, 1000000000000000000 + n, ${now} - n % 86400
      from new_owner where n % 3 = 1`);
  await sql.unsafe(`drop view new_owner`);
  await sql.unsafe(`analyze`);

  const { rows, distinct } = (
    await sql<{ rows: string; distinct: string }[]>`select count(*)::text as rows, count(distinct owner)::text as distinct from ${sql(schema)}.activity`
  )[0]!;
  const positions: Record<string, number> = {};
  for (const table of ["vault_position", "deposit_request", "withdrawal_request", "limit_order", "grid", "ladder", "ladder_leg", "basket_balance"]) {
    const row = (await sql<{ c: string }[]>`select count(*)::text as c from ${sql(schema)}.${sql(table)}`)[0];
    positions[table] = Number(row?.c);
  }
  return { seconds: (performance.now() - t0) / 1000, rows: Number(rows), owners: Number(distinct), positions };
}

/** NEW_CHANGES new changes per polled owner, in blocks above every other (what their polls answer). */
export async function addChanges(sql: postgres.Sql, schema: string, owners: string[], d: Deployments) {
  const top = (await sql<{ top: string }[]>`select max(block_number)::text as top from ${sql(schema)}.activity`)[0]!.top;
  const base = BigInt(top) + 1n;
  const contract = d.contracts.limitOrderHook!.toLowerCase();
  await sql`
    insert into ${sql(schema)}.activity (owner, position, kind, subject, contract, data, tx_hash, block_number, block_hash, log_index, timestamp)
    select lower(o.owner), (${base.toString()}::numeric + (j / 10)) * 1000000 + (j % 10) * 10, 'order.filled', (2000000000 + j)::text, ${contract},
           json_build_object('amount', (j * 31)::text), '0x' || md5('ntx-' || j) || md5('ntx2-' || j), ${base.toString()}::numeric + (j / 10),
           '0x' || md5('nblock-' || (j / 10)) || md5('nhash-' || (j / 10)), j % 10, extract(epoch from now())::int
    from unnest(${owners}::text[]) with ordinality as o(owner, idx)
    cross join generate_series(0, ${NEW_CHANGES - 1}) k
    cross join lateral (select ((o.idx - 1) * ${NEW_CHANGES} + k)::bigint as j) x`;
  await sql`analyze ${sql(schema)}.activity`;
}

// ------------------------------------------------------------------------------------------ helpers

export function sample<T>(list: T[], n: number): T[] {
  const copy = [...list];
  for (let i = 0; i < n && i < copy.length; i++) {
    const j = i + Math.floor(Math.random() * (copy.length - i));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy.slice(0, n);
}

export async function mapConcurrent<T, R>(items: T[], concurrency: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await run(items[i]!);
      }
    }),
  );
  return out;
}

/** The bare app the routes are compared with: one route answering a constant. */
function serveBare(port: number) {
  const app = new Hono().get("/", (c) => c.json({ data: 1 }));
  serve({ fetch: app.fetch, port, hostname: "127.0.0.1" });
}

if (isMain(import.meta.url)) {
  if (process.env[BARE_PORT_ENV]) serveBare(Number(process.env[BARE_PORT_ENV]));
  else {
    printMachine();
    const env = (name: string, fallback: number) => Number(process.env[name] || fallback);
    const result = await benchReadSpeed({
      activityRows: env("READ_ACTIVITY_ROWS", 1_000_000),
      owners: env("READ_OWNERS", 50_000),
      pollOwners: env("READ_POLL_OWNERS", 10_000),
      connections: env("READ_CONNECTIONS", 64),
      durationS: env("READ_DURATION_S", 12),
    });
    printResult(result);
    saveResult(result);
    process.exit(0);
  }
}
