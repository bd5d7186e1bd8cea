// The account answer's shaping alone (no Postgres): every owner's rows read once, then shaped and
// serialized (shapeAccount, accountEntry) round after round; node's CPU per answer. With --cpu-prof,
// where the shaping's time goes.
//   npx tsx bench/tools/shape-cost.ts   (SHAPE_COST_HOLD, default /tmp/hold.json; SHAPE_COST_OWNERS, 2000; SHAPE_COST_ROUNDS, 20)
import { readFileSync } from "node:fs";
import type postgres from "postgres";
import type { Deployments } from "../../adapters/chain/deployments.js";
import { createProjectionsDb, createProjectionsPostgres } from "../../adapters/db/projections.js";
import { readAccountRows, type AccountRows } from "../../adapters/db/reads/accounts.js";
import { DAY_S } from "../../domain/price.js";
import { accountEntry } from "../../usecases/answers/account-body.js";
import { DEFAULT_CLOSED_DAYS, shapeAccount } from "../../usecases/answers/accounts.js";
import type { ReadHold } from "../read-speed.js";

const hold = JSON.parse(readFileSync(process.env.SHAPE_COST_HOLD ?? "/tmp/hold.json", "utf8")) as ReadHold;
const deployments = JSON.parse(readFileSync(hold.stack.DEPLOYMENTS_FILE, "utf8")) as Deployments;
const owners = hold.owners.slice(0, Number(process.env.SHAPE_COST_OWNERS ?? 2000)).map((o) => o.toLowerCase() as `0x${string}`);
const rounds = Number(process.env.SHAPE_COST_ROUNDS ?? 20);

const sql = createProjectionsPostgres({ url: hold.stack.DATABASE_URL, max: 1 }) as postgres.Sql;
const reads = createProjectionsDb({ sql, viewsSchema: "agent_views" });
const usdgAddress = deployments.contracts.usdg?.toLowerCase() as `0x${string}` | undefined;
const now = new Date();
const closedDays = DEFAULT_CLOSED_DAYS;
const cutoff = Math.floor(now.getTime() / 1000) - closedDays * DAY_S;
const wires: AccountRows[] = [];
try {
  for (const owner of owners) wires.push(await readAccountRows({ reads, owner, cutoff, usdg: usdgAddress }));
} finally {
  await reads.destroy();
}
const items = wires.reduce(
  (n, w) => n + w.vaults.length + w.deposits.length + w.withdrawals.length + w.orders.length + w.grids.length + w.ladders.length + w.holdings.length,
  0,
);
const perAnswer: number[] = [];
let bytes = 0;
for (let round = 0; round < rounds; round++) {
  const t0 = process.cpuUsage();
  for (let i = 0; i < owners.length; i++) {
    const { account, listedUntilMs, valuedUntilMs } = shapeAccount(wires[i]!, { owner: owners[i]!, deployments, now, closedDays, cutoff, usdgAddress });
    const entry = accountEntry(account, listedUntilMs, valuedUntilMs);
    if (round === 0) bytes += entry.head.length + entry.mid.length + entry.tail.length;
  }
  const t = process.cpuUsage(t0);
  perAnswer.push((t.user + t.system) / 1000 / owners.length);
}
const median = [...perAnswer].sort((a, b) => a - b)[Math.floor(perAnswer.length / 2)]!;
console.log(
  `${owners.length} answers (${(items / owners.length).toFixed(1)} items, ${Math.round(bytes / owners.length)} bytes each), ${rounds} rounds: ` +
    `shaping ${median.toFixed(4)} ms per answer (median; rounds ${perAnswer.map((x) => x.toFixed(3)).join(" ")})`,
);
