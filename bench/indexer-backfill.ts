// Benchmark 2: the whole seeded history (90 days) indexed end to end, from a fresh database, by our
// indexer (`npm run indexer`) and by a baseline Ponder app over the same sources that only inserts raw
// logs (bench/baseline-app). Prints events indexed, the wall time from start to /ready, events/s, and the
// ratio ours/baseline; then where our indexer spends its time, from Ponder's own metrics.
// Alone: `npx tsx bench/indexer-backfill.ts` (starts its own devnet; DEVNET_HISTORY_DAYS, default 90).
import postgres from "postgres";
import {
  isMain,
  log,
  metricBy,
  metricSum,
  ponderMetrics,
  printMachine,
  printResult,
  round,
  saveResult,
  startDevnet,
  startIndexer,
  table,
  treeCpuSeconds,
  waitReady,
  type BenchResult,
  type Devnet,
  type IndexerKind,
  type Metrics,
} from "./lib.js";

export const RATIO_TARGET = 0.7;
export const BACKFILL_TARGET_S = 60;

type Run = { events: number; wallS: number; eventsPerS: number; metrics: Metrics; rows?: number; cpuS?: number };

export async function benchIndexerBackfill({ devnet, days = 90 }: { devnet?: Devnet; days?: number } = {}): Promise<BenchResult> {
  const own = devnet ?? (await startDevnet({ days }));
  try {
    log("indexer-backfill: our indexer, fresh database");
    const ours = await indexOnce("ours", own);
    log(`ours: ${ours.events} events in ${ours.wallS.toFixed(1)} s`);
    log("indexer-backfill: baseline app (raw logs), fresh database");
    const base = await indexOnce("baseline", own);
    log(`baseline: ${base.events} events in ${base.wallS.toFixed(1)} s`);
    // Diagnostic (BENCH_ONE_LANE=1): ours with the RPC URL listed once, where Ponder's per-URL request
    // rate limit (from 20 requests/s) caps the backfill; INDEXER_RPC_LANES defaults to 8 on the devnet.
    const oneLane = process.env.BENCH_ONE_LANE === "1" ? await indexOnce("ours-one-lane", own) : undefined;
    if (oneLane) log(`ours with one RPC lane: ${oneLane.events} events in ${oneLane.wallS.toFixed(1)} s`);
    // The baseline handles every event of every ABI in the config (one insert each); ours registers only the
    // events it projects (52,145 of the baseline's 108,009 on the 90-day seeded chain, session 16).
    // Both read the same logs, so the like-for-like ratio is of wall times; events/s is kept as printed before.
    const ratio = base.wallS / ours.wallS;
    printProfile(ours.metrics);
    return {
      name: "indexer-backfill",
      figures: [
        { name: "ours: events indexed", value: ours.events },
        { name: "ours: start to /ready", value: ours.wallS, unit: "s", target: `< ${BACKFILL_TARGET_S} s`, pass: ours.wallS < BACKFILL_TARGET_S },
        { name: "ours: events/s", value: ours.eventsPerS },
        { name: "ours: indexer CPU time (ponder process)", value: ours.cpuS ?? NaN, unit: "s" },
        { name: "baseline: events indexed", value: base.events },
        { name: "baseline: raw_log rows", value: base.rows ?? NaN },
        { name: "baseline: start to /ready", value: base.wallS, unit: "s" },
        { name: "baseline: events/s", value: base.eventsPerS },
        { name: "ratio ours/baseline (events/s; the baseline handles events ours does not)", value: ours.eventsPerS / base.eventsPerS },
        {
          name: "ratio ours/baseline by wall time over the same logs (baseline's / ours)",
          value: ratio,
          target: `>= ${RATIO_TARGET}`,
          pass: ratio >= RATIO_TARGET,
        },
        ...(oneLane
          ? [
              { name: "diagnostic, ours with one RPC lane: start to /ready", value: oneLane.wallS, unit: "s" },
              { name: "diagnostic, ours with one RPC lane: events/s", value: oneLane.eventsPerS },
            ]
          : []),
        { name: "ours: sync requests (eth_getLogs, eth_getBlockByNumber, eth_call)", value: syncRequests(ours.metrics) },
      ],
      notes: [`history: ${days} days; chain head ${own.times.block ?? "?"}`],
    };
  } finally {
    if (!devnet) await own.stop();
  }
}

/** Indexes the devnet's chain into a fresh database, from process start until Ponder's /ready. */
async function indexOnce(kind: IndexerKind, devnet: Devnet): Promise<Run> {
  const indexer = await startIndexer(kind, devnet);
  try {
    const wallS = await waitReady(indexer);
    const metrics = await ponderMetrics(indexer.ponderUrl);
    const events = metricSum(metrics, "ponder_indexing_completed_events");
    const cpuS = treeCpuSeconds(indexer.process.pid);
    let rows: number | undefined;
    if (kind === "baseline") {
      const sql = postgres(indexer.db.url, { max: 1, onnotice: () => {} });
      rows = Number((await sql`select count(*)::int as n from baseline.raw_log`)[0]!.n);
      await sql.end();
    }
    return { events, wallS, eventsPerS: events / wallS, metrics, rows, cpuS };
  } finally {
    await indexer.stop();
  }
}

const syncRequests = (m: Metrics) => [...metricBy(m, "ponder_rpc_request_duration_count", "method").values()].reduce((a, b) => a + b, 0);

/** Where our indexer spent its time: handlers by event, their RPC reads, store operations, sync requests. */
function printProfile(m: Metrics) {
  console.log("\n-- our indexer, by event: count, handler time (sum), mean");
  const count = metricBy(m, "ponder_indexing_completed_events", "event");
  const sum = metricBy(m, "ponder_indexing_function_duration_sum", "event");
  const rows = [...sum]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 15)
    .map(([event, ms]) => ({
      event,
      events: count.get(event) ?? 0,
      "handler ms (sum)": Math.round(ms),
      "ms/event": round(ms / Math.max(1, count.get(event) ?? 0)),
    }));
  table(rows);
  const handlerMs = [...sum.values()].reduce((a, b) => a + b, 0);
  console.log(`handlers total: ${Math.round(handlerMs)} ms over ${[...count.values()].reduce((a, b) => a + b, 0)} events`);
  console.log("\n-- RPC reads in handlers (context.client), by method and type");
  table((m.get("ponder_indexing_rpc_requests_total") ?? []).map((s) => ({ method: s.labels.method ?? "", type: s.labels.type ?? "", requests: s.value })));
  const rpcAction = metricBy(m, "ponder_indexing_rpc_action_duration_sum", "action");
  const rpcActionCount = metricBy(m, "ponder_indexing_rpc_action_duration_count", "action");
  table([...rpcAction].map(([action, ms]) => ({ action, calls: rpcActionCount.get(action) ?? 0, "ms (sum)": Math.round(ms) })));
  console.log("\n-- store operations by table and method (top 12)");
  table(
    (m.get("ponder_indexing_store_queries_total") ?? [])
      .sort((a, b) => b.value - a.value)
      .slice(0, 12)
      .map((s) => ({ table: s.labels.table ?? "", method: s.labels.method ?? "", count: s.value })),
  );
  console.log("\n-- sync RPC requests (backfill) by method");
  const syncSum = metricBy(m, "ponder_rpc_request_duration_sum", "method");
  const syncCount = metricBy(m, "ponder_rpc_request_duration_count", "method");
  table([...syncCount].map(([method, n]) => ({ method, requests: n, "ms (sum)": Math.round(syncSum.get(method) ?? 0) })));
}

if (isMain(import.meta.url)) {
  printMachine();
  // BENCH_DEVNET_PORT and BENCH_DEPLOYMENTS_FILE: index a devnet that is already running instead.
  const running = process.env.BENCH_DEVNET_PORT
    ? ({
        port: Number(process.env.BENCH_DEVNET_PORT),
        deploymentsFile: process.env.BENCH_DEPLOYMENTS_FILE!,
        times: {},
        stop: async () => {},
      } as unknown as Devnet)
    : undefined;
  const result = await benchIndexerBackfill({ devnet: running, days: Number(process.env.DEVNET_HISTORY_DAYS ?? 90) });
  printResult(result);
  saveResult(result);
  process.exit(0);
}
