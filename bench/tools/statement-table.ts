// The changing-answers run's statements (bench/results/changing-answers-statements.json, written when the
// bench ran on a counting Postgres: bench/tools/counting-postgres.ts), grouped by side and part, per
// changed owner: where Postgres's execution time goes.
//
//   npx tsx bench/tools/statement-table.ts [file]
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../lib.js";
import type { StatementRow } from "../lib.js";

const file = process.argv[2] ?? join(repoRoot, "bench", "results", "changing-answers-statements.json");
const { blocks, changedOwners, statements } = JSON.parse(readFileSync(file, "utf8")) as { blocks: number; changedOwners: number; statements: StatementRow[] };

/** Which part of which side a statement is, by its text. */
function partOf(q: string): [side: string, part: string] {
  if (/_reorg__/.test(q) && /^INSERT/.test(q)) return ["indexer", "Ponder's reorg shadow rows (row triggers)"];
  if (/^update "ponder"\."_reorg__/.test(q) || /_reorg__/.test(q)) return ["indexer", "Ponder's reorg tables: commit a block's rows, finalize"];
  if (/live_query/.test(q)) return ["indexer", "Ponder's live-query triggers and temp table"];
  if (/^COPY "ponder"\."activity"/.test(q)) return ["indexer", "activity rows (COPY, our indexes)"];
  if (/vault_position|COPY "vault_position"|TRUNCATE TABLE "vault_position"/.test(q)) return ["indexer", "position upserts (temp table, COPY, UPDATE)"];
  if (/_ponder_checkpoint/.test(q) && /^update/.test(q)) return ["indexer", "checkpoint row and its NOTIFY trigger"];
  if (/ponder_sync/.test(q)) return ["indexer", "Ponder's sync store (blocks, logs, transactions)"];
  if (/"ponder"\./.test(q) || /^(COPY|CREATE TEMP|TRUNCATE|SAVEPOINT|RELEASE)/.test(q)) return ["indexer", "other indexer statements"];
  if (/activity_cursor/.test(q) && /^insert/.test(q)) return ["api", "derived cursor inserts"];
  if (/activity_cursor/.test(q)) return ["api", "cursor reads and sweeps"];
  if (/pg_notify|pg_class|string_agg\(distinct owner/.test(q)) return ["api", "version tracker and barriers"];
  if (/json_build_object\('number'/.test(q)) return ["api", "activity polls"];
  return ["api", "other API statements"];
}

const parts = new Map<string, { side: string; ms: number; calls: number }>();
for (const s of statements) {
  const [side, part] = partOf(s.query);
  const p = parts.get(part) ?? { side, ms: 0, calls: 0 };
  p.ms += s.totalMs;
  p.calls += s.calls;
  parts.set(part, p);
}
console.log(`${blocks} blocks, ${changedOwners} changed owners; execution time (pg_stat_statements, nested statements counted inside their callers too)`);
console.log("| side | part | ms per changed owner | statements per block |");
console.log("|---|---|---|---|");
for (const [part, p] of [...parts].sort((a, b) => a[1].side.localeCompare(b[1].side) || b[1].ms - a[1].ms))
  console.log(`| ${p.side} | ${part} | ${(p.ms / changedOwners).toFixed(3)} | ${(p.calls / blocks).toFixed(1)} |`);
