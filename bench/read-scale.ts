// Scale curve (issue 23): the read benchmark at 10,000, 100,000 and 1,000,000 owners, 20 activity rows
// and a few positions per owner (as bench/read-speed.ts: 1,000,000 rows over 50,000 owners), loaded in
// steps into one indexer's database. At each step two fresh APIs (the shipped one, its cache on, and one
// with READ_CACHE_ENTRIES=0) are driven with autocannon on `GET accounts/{owner}` (a random owner of all)
// and `GET activity?cursor` (POLL_OWNERS owners with a baseline taken through the API, then 3 new changes
// each): req/s, p99, the cache's hit rate and the cached API's RSS after the drives. The cached API is
// a fresh process brought to its steady state first: every polled cursor read once, and as many distinct
// owners as the cache holds (all of them up to READ_CACHE_ENTRIES, 100,000 by default), then a warm-up
// drive of WARM_S. Once the owners exceed what the cache holds, its hit rate falls towards the share of
// owners it can hold (random owners, least recently used out).
//
// `npx tsx bench/read-scale.ts` (SCALE_OWNERS=10000,100000,1000000; SCALE_DURATION_S 10).
import postgres from "postgres";
import { getAddress } from "viem";
import type { Deployments } from "../adapters/chain/deployments.js";
import { freePort, readJson } from "../test/helpers/stack.js";
import {
  deleteRedisKeys,
  freshDatabase,
  isMain,
  log,
  printMachine,
  printResult,
  rssMiB,
  saveResult,
  startDevnet,
  startIndexer,
  waitReady,
  type BenchResult,
  type Figure,
} from "./lib.js";
import { addChanges, cacheCounts, clientHeaders, drive, loadSyntheticRows, mapConcurrent, sample, readStackOf, startReadApi } from "./read-speed.js";

const REDIS_URL = process.env.REDIS_URL || "redis://127.0.0.1:6379";
const ROWS_PER_OWNER = 20;
const POLL_OWNERS = 10_000;
const CONNECTIONS = 64;
const WARM_S = 5;
/** The shipped cache's entries per route (adapters/config.ts READ_CACHE_ENTRIES default). */
const CACHE_ENTRIES = 100_000;

export type ReadScaleOptions = { steps?: number[]; durationS?: number };

export async function benchReadScale({ steps = [10_000, 100_000, 1_000_000], durationS = 10 }: ReadScaleOptions = {}): Promise<BenchResult> {
  const db = await freshDatabase("bench_scale");
  log(`read-scale: database ${db.name}; owners ${steps.map((n) => n.toLocaleString("en")).join(" → ")}, ${ROWS_PER_OWNER} activity rows each`);
  const devnet = await startDevnet({ days: 1 });
  let indexer: Awaited<ReturnType<typeof startIndexer>> | undefined;
  const sql = postgres(db.url, { max: 1, onnotice: () => {} });
  const figures: Figure[] = [];
  const notes: string[] = [];
  try {
    indexer = await startIndexer("ours", devnet, {}, { db, logName: "read-scale-indexer" });
    await waitReady(indexer);
    const d = readJson<Deployments>(devnet.deploymentsFile);
    let loaded = 0;
    for (const owners of steps) {
      const load = await loadSyntheticRows(sql, indexer.schema, d, { activityRows: (owners - loaded) * ROWS_PER_OWNER, owners, firstOwner: loaded });
      loaded = owners;
      log(`${owners.toLocaleString("en")} owners: ${load.rows.toLocaleString("en")} activity rows (step loaded in ${load.seconds.toFixed(0)} s)`);
      const ownerList = (await sql<{ owner: string }[]>`select owner from bench_owner order by n`).map((r) => getAddress(r.owner));
      const stack = readStackOf(db, indexer, devnet, `${db.name}_${owners}`);
      const cachedMetrics = await freePort();
      const cached = await startReadApi(stack, { env: { METRICS_PORT: String(cachedMetrics) } });
      const uncached = await startReadApi(stack, { env: { READ_CACHE_ENTRIES: "0", METRICS_PORT: String(await freePort()) } });
      try {
        const polled = sample(ownerList, Math.min(POLL_OWNERS, ownerList.length));
        const cursors = await mapConcurrent(polled, 32, async (owner) => {
          const res = await fetch(`${uncached.url}/v1/agent/accounts/${owner}/activity`, { headers: clientHeaders(`/${owner}`) });
          const body = (await res.json()) as { data?: { cursor: string } };
          if (!body.data) throw new Error(`baseline of ${owner}: ${res.status}`);
          return { owner, cursor: body.data.cursor };
        });
        await addChanges(sql, indexer.schema, polled, d);
        const accountPath = () => `/v1/agent/accounts/${ownerList[Math.floor(Math.random() * ownerList.length)]}`;
        const activityPath = () => {
          const c = cursors[Math.floor(Math.random() * cursors.length)]!;
          return `/v1/agent/accounts/${c.owner}/activity?cursor=${c.cursor}`;
        };
        const label = owners.toLocaleString("en");
        const fill = async (paths: string[]) =>
          mapConcurrent(paths, CONNECTIONS, async (path) => {
            const res = await fetch(cached.url + path, { headers: clientHeaders(path) });
            await res.arrayBuffer();
          });
        const t0 = performance.now();
        await fill(sample(ownerList, Math.min(CACHE_ENTRIES, ownerList.length)).map((o) => `/v1/agent/accounts/${o}`));
        await fill(cursors.map((c) => `/v1/agent/accounts/${c.owner}/activity?cursor=${c.cursor}`));
        log(`${label} owners: cached API filled in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
        for (const [route, path] of [
          ["accounts", accountPath],
          ["activity", activityPath],
        ] as const) {
          const u = await drive(route, uncached.url, path, CONNECTIONS, durationS);
          await drive(route, cached.url, path, CONNECTIONS, WARM_S);
          const before = await cacheCounts(`http://127.0.0.1:${cachedMetrics}/metrics`, route);
          const c = await drive(route, cached.url, path, CONNECTIONS, durationS);
          const after = await cacheCounts(`http://127.0.0.1:${cachedMetrics}/metrics`, route);
          const answered = after.hit + after.miss + after.bypass - before.hit - before.miss - before.bypass;
          const hitRate = answered > 0 ? (after.hit - before.hit) / answered : NaN;
          log(
            `${label} owners, ${route}: uncached ${Math.round(u.rps)} req/s p99 ${u.p99} ms; cached ${Math.round(c.rps)} req/s p99 ${c.p99} ms, hit rate ${(hitRate * 100).toFixed(1)}%`,
          );
          figures.push(
            { name: `${label} owners, ${route}, uncached: req/s`, value: u.rps, unit: "req/s" },
            { name: `${label} owners, ${route}, uncached: p99`, value: u.p99, unit: "ms" },
            { name: `${label} owners, ${route}, cached: req/s`, value: c.rps, unit: "req/s" },
            { name: `${label} owners, ${route}, cached: p99`, value: c.p99, unit: "ms" },
            { name: `${label} owners, ${route}, cached: hit rate`, value: `${(hitRate * 100).toFixed(1)}%` },
          );
          if (u.non2xx + u.errors + c.non2xx + c.errors > 0)
            notes.push(`${label} owners, ${route}: ${u.non2xx + c.non2xx} not 2xx, ${u.errors + c.errors} errors`);
        }
        // V8's heap beside the RSS: what the cache and live objects hold, against what the process keeps.
        const heap = await fetch(`http://127.0.0.1:${cachedMetrics}/metrics`).then((r) => r.text());
        const heapMiB = (name: string) => Number(new RegExp(`^${name} (\\S+)`, "m").exec(heap)?.[1] ?? Number.NaN) / 2 ** 20;
        figures.push(
          { name: `${label} owners, cached API RSS after its drives`, value: rssMiB(cached.process.pid!), unit: "MiB" },
          {
            name: `${label} owners, cached API V8 heap used / total`,
            value: `${heapMiB("nodejs_heap_size_used_bytes").toFixed(0)} / ${heapMiB("nodejs_heap_size_total_bytes").toFixed(0)}`,
            unit: "MiB",
          },
          { name: `${label} owners, uncached API RSS after its drives`, value: rssMiB(uncached.process.pid!), unit: "MiB" },
        );
      } finally {
        await cached.stop();
        await uncached.stop();
        await deleteRedisKeys(REDIS_URL, stack.REDIS_PREFIX).catch(() => {});
      }
    }
    return {
      name: "read-scale",
      figures,
      notes: [
        `autocannon ${CONNECTIONS} connections, ${durationS} s per drive; the cached API filled first (every polled cursor, and min(owners, ${CACHE_ENTRIES.toLocaleString("en")}) distinct owners read once), then a ${WARM_S} s warm-up drive; one round per step (a curve, not an A/B: read-speed has the rounds)`,
        `activity polls over ${POLL_OWNERS.toLocaleString("en")} owners at every step (baselines through the API, then 3 new changes each); accounts over every owner`,
        "cache bound: READ_CACHE_ENTRIES 100,000 entries and READ_CACHE_MB 256 per route (as shipped)",
        ...notes,
      ],
    };
  } finally {
    await sql.end().catch(() => {});
    await indexer?.stop();
    await db.drop();
    await devnet.stop();
  }
}

if (isMain(import.meta.url)) {
  printMachine();
  const steps = (process.env.SCALE_OWNERS ?? "10000,100000,1000000").split(",").map(Number);
  const result = await benchReadScale({ steps, durationS: Number(process.env.SCALE_DURATION_S ?? 10) });
  printResult(result);
  saveResult(result);
  process.exit(0);
}
