// Issue 30: one report-card grading pass over many open filings. GRADING_FILINGS open filings (default
// 1,000,000) over GRADING_OWNERS owners (10,000), all made in the 10 minutes before the pass (still in
// their match window, so none can be settled), then GRADING_CALLS (200) mined calls that match 200 of them.
// The rows are synthetic but go into the real tables (the API schema, migrated; the executed calls in a
// projections schema shaped as Ponder makes it) and the pass is the real one (usecases/report-card/run-grading.ts).
// Prints the pass's time and this process's peak resident memory during the pass (VmHWM, reset before it).
//
// `npx tsx bench/grading.ts` (GRADING_FILINGS, GRADING_OWNERS, GRADING_CALLS to change the sizes).
import { readFileSync, writeFileSync } from "node:fs";
import postgres from "postgres";
import { getAddress, type Address } from "viem";
import { createDb, migrateToLatest } from "../adapters/db/connect.js";
import { createProjectionsDb, createProjectionsPostgres } from "../adapters/db/projections.js";
import { buildOrderAction } from "../domain/bundles/index.js";
import { callKeyOf } from "../domain/grading/index.js";
import { runGrading } from "../usecases/report-card/run-grading.js";
import { BENCH_API_SCHEMA, freshDatabase, isMain, log, printMachine, printResult, round, saveResult, type BenchResult } from "./lib.js";

const SCHEMA = BENCH_API_SCHEMA;
const VIEWS = "bench_views";
const hook = "0x5555555555555555555555555555555555555555" as Address;

/** Peak resident memory of this process (MiB) since the last reset. */
function peakRssMiB(): number {
  const line = readFileSync("/proc/self/status", "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmHWM:"));
  return Number(line!.split(/\s+/)[1]) / 1024;
}
/** Resets VmHWM to the current resident set (Linux: "5" to clear_refs). */
function resetPeakRss(): void {
  try {
    writeFileSync("/proc/self/clear_refs", "5");
  } catch {
    // Not Linux or not allowed: the peak then counts the loading too.
  }
}

export async function benchGrading(p: { filings: number; owners: number; calls: number }): Promise<BenchResult> {
  const database = await freshDatabase("agent_bench_grading");
  const raw = postgres(database.url, { max: 2, onnotice: () => {} });
  const db = createDb({ url: database.url, schema: SCHEMA, max: 4 });
  const reads = createProjectionsDb({ sql: createProjectionsPostgres({ url: database.url, max: 4 }), viewsSchema: VIEWS });
  try {
    await migrateToLatest(db, SCHEMA);
    await raw.unsafe(`
      create schema ${VIEWS};
      create table ${VIEWS}.executed_call (tx_hash text primary key, "from" text not null, "to" text not null, input text not null, selector text not null, success boolean not null, block_number numeric(78) not null, "timestamp" integer not null);
      create index on ${VIEWS}.executed_call ("from", "to");
      create table ${VIEWS}.pool_swap (token text, price_x_18 numeric(78), block_number numeric(78), "timestamp" integer);
      create table ${VIEWS}.activity (owner text, tx_hash text, kind text, subject text, contract text, data jsonb, "timestamp" integer);
    `);
    const owners = Array.from({ length: p.owners }, (_, i) => getAddress(`0x${(0x10000 + i).toString(16).padStart(40, "0")}`));
    const template = buildOrderAction({ owner: owners[0]!, hook, action: "claimBoth", id: 0n });
    const selector = template.steps[0]!.data.slice(0, 10);
    if (template.steps.length !== 1 || template.steps[0]!.data.length !== 10 + 64) throw new Error("claimBoth is not one step of selector + id");
    const dataOf = (id: number) => `${selector}${id.toString(16).padStart(64, "0")}`;
    const now = Date.UTC(2026, 0, 1, 12);
    // Filed in the 9 minutes before the pass: every filing is still in its window.
    const filedAt = (i: number) => now - 60_000 - ((i * 7919) % 480_000);

    const loadStart = performance.now();
    const batch = 8_000;
    for (let start = 0; start < p.filings; start += batch) {
      const rows = [];
      for (let i = start; i < Math.min(p.filings, start + batch); i++) {
        rows.push({
          id: `f${i}`,
          owner: owners[i % p.owners]!.toLowerCase(),
          agent_tag: `agent${i % 3}`,
          kind: "order-action",
          steps: raw.json([{ to: hook, data: dataOf(i), value: "0" }]),
          created_at: new Date(filedAt(i)),
          call_key: callKeyOf(hook, dataOf(i)),
        });
      }
      await raw`insert into ${raw(SCHEMA)}.filing ${raw(rows)}`;
    }
    await raw.unsafe(`analyze ${SCHEMA}.filing`);
    // The mined calls: `calls` filings, spread over the set, each sent 30 s after it was filed.
    const callRows = [];
    for (let k = 0; k < p.calls; k++) {
      const i = Math.floor(((k + 0.5) * p.filings) / p.calls);
      callRows.push({
        tx_hash: `0x${(k + 1).toString(16).padStart(64, "0")}`,
        from: owners[i % p.owners]!.toLowerCase(),
        to: hook.toLowerCase(),
        input: dataOf(i),
        selector,
        success: true,
        block_number: String(1000 + k),
        timestamp: Math.floor((filedAt(i) + 30_000) / 1000),
      });
    }
    await raw`insert into ${raw(VIEWS)}.executed_call ${raw(callRows)}`;
    await raw`insert into ${raw(VIEWS)}.pool_swap values (${hook}, 1, 2000, ${Math.floor(now / 1000)})`;
    const loadS = (performance.now() - loadStart) / 1000;
    log(`loaded ${p.filings} filings over ${p.owners} owners and ${p.calls} mined calls in ${loadS.toFixed(1)} s`);

    global.gc?.();
    resetPeakRss();
    const rssBefore = process.memoryUsage().rss / 2 ** 20;
    const started = performance.now();
    const summary = await runGrading({ db, reads, now: () => new Date(now) });
    const ms = performance.now() - started;
    const peak = peakRssMiB();
    console.log(`grading pass with ${p.filings} open filings: ${Math.round(ms)} ms`);
    console.log(`peak memory of the pass: ${Math.round(peak)} MiB resident (${Math.round(rssBefore)} MiB before it)`);
    log(`summary ${JSON.stringify(summary)}`);
    if (summary.matched !== p.calls) throw new Error(`matched ${summary.matched} of ${p.calls} mined calls`);
    return {
      name: "grading",
      figures: [
        { name: `grading pass, ${p.filings} open filings, ${p.calls} new calls`, value: round(ms), unit: "ms", target: "< 2000", pass: ms < 2000 },
        { name: "peak resident memory during the pass", value: round(peak), unit: "MiB", target: "< 512", pass: peak < 512 },
        { name: "resident before the pass", value: round(rssBefore), unit: "MiB" },
        { name: "load time of the synthetic rows", value: round(loadS), unit: "s" },
      ],
      notes: [`${p.owners} owners; summary ${JSON.stringify(summary)}`],
    };
  } finally {
    await Promise.allSettled([db.destroy(), reads.destroy(), raw.end()]);
    await database.drop();
  }
}

if (isMain(import.meta.url)) {
  printMachine();
  const result = await benchGrading({
    filings: Number(process.env.GRADING_FILINGS ?? 1_000_000),
    owners: Number(process.env.GRADING_OWNERS ?? 10_000),
    calls: Number(process.env.GRADING_CALLS ?? 200),
  });
  printResult(result);
  saveResult(result);
  process.exit(0);
}
