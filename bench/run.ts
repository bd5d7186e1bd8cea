// `npm run bench`: every benchmark in turn, each printing its own table, then a summary of the figures
// the issue sets targets for. Benchmarks report; they never fail on a time (a benchmark that cannot run
// is reported as an error and the others still run).
//   1. devnet-seed       the devnet with 90 days of history: deploy and seed times (bench/devnet-seed.ts)
//   2. indexer-backfill  that same devnet indexed end to end, ours vs a raw-log baseline (bench/indexer-backfill.ts)
//   3. live-latency      receipt to activity row on a live devnet and indexer (bench/live-latency.ts)
//   4. read-speed        accounts/{owner} and activity?cursor over 1,000,000 activity rows vs a bare Hono app (bench/read-speed.ts)
//   5. prepare-latency   POST prepare/{kind} through the API, queue and a worker: p50/p99 per kind (bench/prepare-latency.ts)
//   6. backtests         grid backtest, ranges, a 200-token grid scan and the strategy-finder board (bench/backtests.ts)
//   7. long-poll         1,000 agents waiting on activity: wake latency after the block, Postgres connections (bench/long-poll.ts)
//   8. load              2,000 agents polling their activity once a second for 60 s while a writer trades (bench/load.ts; --soak alone)
//   9. changing-answers  2,000 agents polling while 10% of their owners change every block: 1 API, then 2 APIs by owner and at random (bench/changing-answers.ts)
//  10. read-scale        the read routes at 10,000, 100,000 and 1,000,000 owners, cached and uncached (bench/read-scale.ts)
//  11. x402-payment      a paid (x402) 60-day grid backtest's p50 beside a free one's, and the facilitator's round trips (bench/x402-payment.ts)
//  12. grading          one report-card grading pass over 1,000,000 open filings and 200 new mined calls (bench/grading.ts)
//  13. batch-indexing   one atomic batch of 500, 1,000 and 2,000 calls through the indexer: receipt to indexed (bench/batch-indexing.ts)
// BENCH_DAYS shortens the history of 1 and 2 (for a quick look; targets apply to 90 days).
// BENCH_ONLY runs a subset, e.g. BENCH_ONLY=read-speed,prepare-latency.
import { benchBacktests } from "./backtests.js";
import { benchBatchIndexing } from "./batch-indexing.js";
import { benchChangingAnswers } from "./changing-answers.js";
import { benchDevnetSeed } from "./devnet-seed.js";
import { benchGrading } from "./grading.js";
import { benchIndexerBackfill } from "./indexer-backfill.js";
import { log, machine, printMachine, printResult, round, saveResult, table, type BenchResult } from "./lib.js";
import { benchLiveLatency } from "./live-latency.js";
import { benchLoad } from "./load.js";
import { benchLongPoll } from "./long-poll.js";
import { benchPrepareLatency } from "./prepare-latency.js";
import { benchReadScale } from "./read-scale.js";
import { benchReadSpeed } from "./read-speed.js";
import { benchX402Payment } from "./x402-payment.js";

const days = Number(process.env.BENCH_DAYS ?? 90);
const started = Date.now();
printMachine();
const results: BenchResult[] = [];
const errors: { name: string; error: string }[] = [];

const only = (process.env.BENCH_ONLY ?? "")
  .split(",")
  .map((x) => x.trim())
  .filter(Boolean);
const selected = (name: string) => only.length === 0 || only.includes(name);

async function attempt(name: string, run: () => Promise<BenchResult | undefined>) {
  if (!selected(name)) return;
  try {
    const r = await run();
    if (!r) return;
    printResult(r);
    saveResult(r);
    results.push(r);
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    log(`${name} failed: ${error}`);
    errors.push({ name, error: error.split("\n")[0]! });
  }
}

// 1 then 2 on the same devnet: the history seeded by 1 is what 2 indexes.
let devnet: Awaited<ReturnType<typeof benchDevnetSeed>>["devnet"];
await attempt("devnet-seed", async () => {
  const r = await benchDevnetSeed({ days, keep: true });
  devnet = r.devnet;
  return r.result;
});
await attempt("indexer-backfill", async () => {
  try {
    return await benchIndexerBackfill({ devnet, days });
  } finally {
    await devnet?.stop();
  }
});
if (!selected("indexer-backfill")) await devnet?.stop(); // seeded alone: nothing else uses it
await attempt("live-latency", () => benchLiveLatency());
await attempt("read-speed", () => benchReadSpeed());
await attempt("prepare-latency", () => benchPrepareLatency());
await attempt("backtests", () => benchBacktests());
await attempt("long-poll", () => benchLongPoll());
await attempt("load", () => benchLoad());
await attempt("changing-answers", () => benchChangingAnswers());
// The capacity model's check (bench/README.md "Capacity"): two replicas, routed by owner and at random.
await attempt("changing-answers-2-apis", async () => {
  const byOwner = await benchChangingAnswers({ apis: 2, routing: "owner" });
  printResult(byOwner);
  saveResult(byOwner);
  results.push(byOwner);
  return benchChangingAnswers({ apis: 2, routing: "random" });
});
await attempt("read-scale", () => benchReadScale());
await attempt("x402-payment", () => benchX402Payment());
await attempt("grading", () => benchGrading({ filings: 1_000_000, owners: 10_000, calls: 200, pending: 100_000, runs: 3 }));
await attempt("batch-indexing", () => benchBatchIndexing());

console.log(`\n== summary (${new Date().toISOString().slice(0, 10)}, ${Math.round((Date.now() - started) / 1000)} s in all)`);
const m = machine();
console.log(`machine: ${m.cores} cores (${m.cpu}), node ${m.node}; load average at the end ${m.loadAverage}`);
table([
  ...results.flatMap((r) =>
    r.figures
      .filter((f) => f.target !== undefined)
      .map((f) => ({
        benchmark: r.name,
        figure: f.name,
        value: `${typeof f.value === "number" ? round(f.value) : f.value}${f.unit ? ` ${f.unit}` : ""}`,
        target: f.target!,
        result: f.pass ? "pass" : "miss",
      })),
  ),
  ...errors.map((e) => ({ benchmark: e.name, figure: "(did not run)", value: e.error.slice(0, 60), target: "", result: "error" })),
]);
process.exit(0);
