// Where an uncached account answer's CPU goes, part by part, without HTTP: on a stack held by
// `READ_HOLD=/tmp/hold.json READ_ROUNDS=1 READ_TARGETS=none npx tsx bench/read-speed.ts`, over one
// connection and the same owners each round (warm), the order of the variants reversed every other round:
//   - floor: a prepared statement that reads nothing (Postgres's CPU per round trip, and the driver's);
//   - statement: readAccountRows (the account statement): the backend's CPU per call (from /proc), and this
//     process's (postgres.js and the JSON.parse of the answer);
//   - answer: accountAnswer then accountEntry (the rows shaped, checksummed, formatted and serialized): this
//     process's CPU, less the statement's, is the shaping;
//   - statement, N together: readAccountRows for N owners at once, as concurrent requests ask (one statement
//     since the reads are batched; ACCOUNT_COST_TOGETHER, default 4,16).
// ACCOUNT_COST_BASE=DIR adds the same parts from another checkout (a `git worktree` of an earlier commit).
//   npx tsx bench/tools/account-cost.ts   (ACCOUNT_COST_HOLD, default /tmp/hold.json; ACCOUNT_COST_OWNERS, 2000; ACCOUNT_COST_ROUNDS, 6)
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type postgres from "postgres";
import type { Deployments } from "../../adapters/chain/deployments.js";
import { DAY_S } from "../../domain/price.js";
import { DEFAULT_CLOSED_DAYS } from "../../contract/accounts.js";
import { cpuSeconds, median, repoRoot, BENCH_VIEWS_SCHEMA } from "../lib.js";
import type { ReadHold } from "../read-speed.js";

const hold = JSON.parse(readFileSync(process.env.ACCOUNT_COST_HOLD ?? "/tmp/hold.json", "utf8")) as ReadHold;
const deployments = JSON.parse(readFileSync(hold.stack.DEPLOYMENTS_FILE, "utf8")) as Deployments;
const owners = hold.owners.slice(0, Number(process.env.ACCOUNT_COST_OWNERS ?? 2000));
const rounds = Number(process.env.ACCOUNT_COST_ROUNDS ?? 6);
const roots = [repoRoot, ...(process.env.ACCOUNT_COST_BASE ? [process.env.ACCOUNT_COST_BASE] : [])];

type Part = { name: string; backend: number; run: (owner: string) => Promise<unknown>; together: number; pgMs: number[]; nodeMs: number[] };
const together = (process.env.ACCOUNT_COST_TOGETHER ?? "4,16")
  .split(",")
  .map(Number)
  .filter((n) => n > 1);

/** One connection (so one backend, whose CPU /proc gives) for every part of one checkout. */
async function partsOf(root: string): Promise<{ parts: Part[]; end: () => Promise<unknown> }> {
  const projections = await import(join(root, "adapters/db/projections.ts"));
  const { readAccountRows } = await import(join(root, "adapters/db/reads/accounts.ts"));
  const { accountAnswer } = await import(join(root, "usecases/answers/accounts.ts"));
  const { accountEntry } = await import(join(root, "usecases/answers/account-body.ts"));
  const sql = projections.createProjectionsPostgres({ url: hold.stack.DATABASE_URL, max: 1 }) as postgres.Sql;
  const reads = projections.createProjectionsDb({ sql, viewsSchema: BENCH_VIEWS_SCHEMA });
  const [row] = await sql<{ backend: number }[]>`select pg_backend_pid() as backend`;
  const backend = row!.backend;
  const usdg = deployments.contracts.usdg?.toLowerCase();
  const cutoff = () => Math.floor(Date.now() / 1000) - DEFAULT_CLOSED_DAYS * DAY_S;
  const label = root === repoRoot ? "" : ` (${root})`;
  const part = (name: string, run: Part["run"], n = 1): Part => ({ name: name + label, backend, run, together: n, pgMs: [], nodeMs: [] });
  const statement: Part["run"] = (owner) => readAccountRows({ reads, owner, cutoff: cutoff(), usdg });
  return {
    parts: [
      part("floor", (owner) => sql.unsafe("select $1::text as owner", [owner], { prepare: true })),
      part("statement", statement),
      part("answer", async (owner) => {
        const { account, listedUntilMs, valuedUntilMs } = await accountAnswer({ reads, deployments, owner, now: new Date() });
        return accountEntry(account, listedUntilMs, valuedUntilMs);
      }),
      ...together.map((n) => part(`statement, ${n} together`, statement, n)),
    ],
    end: () => reads.destroy(),
  };
}

/** Every owner through a part: one at a time, or `together` at once. */
async function runAll(p: Part): Promise<void> {
  for (let i = 0; i < owners.length; i += p.together) await Promise.all(owners.slice(i, i + p.together).map(p.run));
}
const checkouts = await Promise.all(roots.map(partsOf));
const parts = checkouts.flatMap((c) => c.parts);
try {
  // Warm: every owner once through every part (and the backend's plans made).
  for (const p of parts) await runAll(p);
  for (let round = 0; round < rounds; round++) {
    for (const p of round % 2 ? [...parts].reverse() : parts) {
      const pg0 = cpuSeconds(p.backend) ?? 0;
      const node0 = process.cpuUsage();
      await runAll(p);
      const node = process.cpuUsage(node0);
      p.pgMs.push((((cpuSeconds(p.backend) ?? 0) - pg0) * 1000) / owners.length);
      p.nodeMs.push((node.user + node.system) / 1000 / owners.length);
    }
  }
  console.log(`${owners.length} owners, ${rounds} rounds; CPU per call, medians [rounds]:`);
  for (const p of parts) {
    console.log(
      `${p.name.padEnd(24)} Postgres ${median(p.pgMs).toFixed(3)} ms [${p.pgMs.map((x) => x.toFixed(3)).join(" ")}]; ` +
        `this process ${median(p.nodeMs).toFixed(3)} ms [${p.nodeMs.map((x) => x.toFixed(3)).join(" ")}]`,
    );
  }
} finally {
  for (const c of checkouts) await c.end();
}
