// The account answer's shaping alone (no Postgres): every owner's rows read once, then shaped and
// serialized (shapeAccount, accountEntry) round after round; node's CPU per answer. With --cpu-prof,
// where the shaping's time goes. SHAPE_COST_BASE=DIR shapes the same rows with another checkout's code
// too (a `git worktree` of an earlier commit that exports shapeAccount), the order alternating by round. The rows
// are this checkout's AccountRows: since c7dc617 their `tokens` is the snapshot's map, not a list, so a base must
// be of c7dc617 or later.
//   npx tsx bench/tools/shape-cost.ts   (SHAPE_COST_HOLD, default /tmp/hold.json; SHAPE_COST_OWNERS, 2000; SHAPE_COST_ROUNDS, 20)
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type postgres from "postgres";
import type { Deployments } from "../../adapters/chain/deployments.js";
import { createProjectionsDb, createProjectionsPostgres } from "../../adapters/db/projections.js";
import { readAccountRows, type AccountRows } from "../../adapters/db/reads/accounts.js";
import { DAY_S } from "../../domain/price.js";
import type { accountEntry as AccountEntry } from "../../usecases/answers/account-body.js";
import type { shapeAccount as ShapeAccount } from "../../usecases/answers/accounts.js";
import { DEFAULT_CLOSED_DAYS } from "../../contract/accounts.js";
import { median, repoRoot, BENCH_VIEWS_SCHEMA } from "../lib.js";
import type { ReadHold } from "../read-speed.js";

const hold = JSON.parse(readFileSync(process.env.SHAPE_COST_HOLD ?? "/tmp/hold.json", "utf8")) as ReadHold;
const deployments = JSON.parse(readFileSync(hold.stack.DEPLOYMENTS_FILE, "utf8")) as Deployments;
const owners = hold.owners.slice(0, Number(process.env.SHAPE_COST_OWNERS ?? 2000)).map((o) => o.toLowerCase() as `0x${string}`);
const rounds = Number(process.env.SHAPE_COST_ROUNDS ?? 20);
const roots = [repoRoot, ...(process.env.SHAPE_COST_BASE ? [process.env.SHAPE_COST_BASE] : [])];

const sql = createProjectionsPostgres({ url: hold.stack.DATABASE_URL, max: 1 }) as postgres.Sql;
const reads = createProjectionsDb({ sql, viewsSchema: BENCH_VIEWS_SCHEMA });
const usdgAddress = deployments.contracts.usdg?.toLowerCase() as `0x${string}` | undefined;
const now = new Date();
const closedDays = DEFAULT_CLOSED_DAYS;
const cutoff = Math.floor(now.getTime() / 1000) - closedDays * DAY_S;
const wires: AccountRows[] = [];
try {
  for (const owner of owners) wires.push(await readAccountRows({ reads, owner, cutoff }));
} finally {
  await reads.destroy();
}
const items = wires.reduce(
  (n, w) => n + w.vaults.length + w.deposits.length + w.withdrawals.length + w.orders.length + w.grids.length + w.ladders.length + w.holdings.length,
  0,
);

type Variant = { root: string; shape: typeof ShapeAccount; entry: typeof AccountEntry; ms: number[] };
const variants: Variant[] = [];
for (const root of roots) {
  const { shapeAccount } = (await import(join(root, "usecases/answers/accounts.ts"))) as { shapeAccount: typeof ShapeAccount };
  const { accountEntry } = (await import(join(root, "usecases/answers/account-body.ts"))) as { accountEntry: typeof AccountEntry };
  variants.push({ root, shape: shapeAccount, entry: accountEntry, ms: [] });
}

function shapeAll(v: Variant): string[] {
  const bodies: string[] = [];
  for (let i = 0; i < owners.length; i++) {
    const { account, listedUntilMs, valuedUntilMs } = v.shape(wires[i]!, { owner: owners[i]!, deployments, now, closedDays, cutoff, usdgAddress });
    const e = v.entry(account, listedUntilMs, valuedUntilMs);
    bodies.push(e.head + e.mid + e.tail);
  }
  return bodies;
}

// Warm, and every checkout's bodies the same byte for byte (a faster shaping that answers otherwise is no faster shaping).
const first = shapeAll(variants[0]!);
for (const v of variants.slice(1)) {
  const bodies = shapeAll(v);
  const differ = bodies.findIndex((b, i) => b !== first[i]);
  if (differ >= 0) throw new Error(`${v.root} shapes ${owners[differ]} otherwise`);
}
const bytes = first.reduce((n, b) => n + b.length, 0) / owners.length;
for (let round = 0; round < rounds; round++) {
  for (const v of round % 2 ? [...variants].reverse() : variants) {
    const t0 = process.cpuUsage();
    shapeAll(v);
    const t = process.cpuUsage(t0);
    v.ms.push((t.user + t.system) / 1000 / owners.length);
  }
}
console.log(`${owners.length} answers (${(items / owners.length).toFixed(1)} items, ${Math.round(bytes)} bytes each), ${rounds} rounds`);
for (const v of variants) {
  const label = v.root === repoRoot ? "this checkout" : v.root;
  console.log(`${label.padEnd(16)} shaping ${median(v.ms).toFixed(4)} ms per answer (median; rounds ${v.ms.map((x) => x.toFixed(3)).join(" ")})`);
}
