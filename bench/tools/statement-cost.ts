// What the account statement costs Postgres per owner, against what reading a per-owner row would cost: on
// a stack held by `READ_HOLD=/tmp/hold.json READ_ROUNDS=1 READ_TARGETS=none npx tsx bench/read-speed.ts`,
// over one connection per variant, batches of owners as the API's batcher sends them under load
// (adapters/db/reads/statement.ts), the order of the variants reversed every other round:
//   - statement: the shipped account statement (adapters/db/reads/accounts.ts), every list assembled per owner;
//   - owner row: a prototype of a projection the indexer does not keep today, one row per owner holding the
//     statement's own answer as text (made here from the statement, in a scratch schema dropped after), read by
//     primary key, with the token, vault and basket rows read once per batch instead of once per owner (a kept row would
//     hold only the owner's own items and read the shared figures it names once per batch);
//   - row rewrite: what keeping that row would cost the write side, as an estimate: the statement for the owners a
//     block changed (STATEMENT_COST_CHANGED, 200: 10% of the changing-answers agents) and their rows rewritten, in one
//     statement. Ponder's own write path (its reorg shadow row for each rewrite) would add to it.
// Prints per variant the backend's CPU per owner (from /proc) and this process's (postgres.js and the JSON.parse
// of each answer): the size of the prize a per-owner row would give, before anyone builds it.
//   npx tsx bench/tools/statement-cost.ts   (STATEMENT_COST_HOLD, default /tmp/hold.json; STATEMENT_COST_BATCH, 11;
//   STATEMENT_COST_BATCHES, 200 per round; STATEMENT_COST_ROUNDS, 7)
import { readFileSync } from "node:fs";
import postgres from "postgres";
import type { Deployments } from "../../adapters/chain/deployments.js";
import { accountStatement } from "../../adapters/db/reads/accounts.js";
import { DAY_S } from "../../domain/price.js";
import { DEFAULT_CLOSED_DAYS } from "../../contract/accounts.js";
import { BENCH_VIEWS_SCHEMA, cpuSeconds, median } from "../lib.js";
import type { ReadHold } from "../read-speed.js";

const hold = JSON.parse(readFileSync(process.env.STATEMENT_COST_HOLD ?? "/tmp/hold.json", "utf8")) as ReadHold;
const deployments = JSON.parse(readFileSync(hold.stack.DEPLOYMENTS_FILE, "utf8")) as Deployments;
const batchSize = Number(process.env.STATEMENT_COST_BATCH ?? 11);
const changedPerBlock = Number(process.env.STATEMENT_COST_CHANGED ?? 200);
const batches = Number(process.env.STATEMENT_COST_BATCHES ?? 200);
const rounds = Number(process.env.STATEMENT_COST_ROUNDS ?? 7);
const VIEWS = BENCH_VIEWS_SCHEMA;
const scratch = `statement_cost_${process.pid}`;

const owners = hold.owners.map((o) => o.toLowerCase());
const usdg = deployments.contracts.usdg?.toLowerCase() ?? null;
const cutoff = Math.floor(Date.now() / 1000) - DEFAULT_CLOSED_DAYS * DAY_S;
const shipped = accountStatement((table) => `"${VIEWS}"."${table}"`);

// The prototype's read: the owners' rows by key, and once for the batch (rows i = -1, -2, -3) the token, vault and basket
// rows, as a kept row holding only the owner's own items would read the shared figures it names.
const ownerRowRead = `
select ask.i, r.account from jsonb_to_recordset($1::text::jsonb) as ask(i int, owner text, cutoff int8, usdg text)
left join "${scratch}".account_row r on r.owner = ask.owner
union all
select -1, (select coalesce(json_agg(json_build_object('address', tk.address, 'symbol', tk.symbol, 'decimals', tk.decimals, 'priceX18', tk.price_x_18::text)), '[]')
  from "${VIEWS}"."token" tk)::text
union all
select -2, (select coalesce(json_agg(json_build_object('address', v.address, 'family', v.family, 'token', v.token, 'agent', v.agent, 'status', v.status,
    'totalAssets', v.total_assets::text, 'usdgAssets', v.usdg_assets::text, 'tokenAssets', v.token_assets::text, 'totalSupply', v.total_supply::text,
    'updatedAt', v.updated_at)), '[]') from "${VIEWS}"."vault" v)::text
union all
select -3, (select coalesce(json_agg(json_build_object('address', k.address, 'name', k.name, 'symbol', k.symbol, 'listed', k.listed, 'tokens', k.tokens,
    'balances', k.balances, 'totalSupply', k.total_supply::text)), '[]') from "${VIEWS}"."basket" k)::text`;

// The write side's estimate: the changed owners' rows made anew by the statement and written over the old ones.
const rowRewrite = `
insert into "${scratch}".account_row (owner, account)
select e.owner, f.account from (${shipped}) f join jsonb_to_recordset($1::text::jsonb) as e(i int, owner text) on e.i = f.i
on conflict (owner) do update set account = excluded.account`;

/** `version`: for the shipped statement ($2), the shared rows' version the variant last met, as the API's copy holds it (undefined: no $2). */
type Variant = {
  name: string;
  text: string;
  size: number;
  cutoff: number;
  sql: postgres.Sql;
  backend: number;
  pgMs: number[];
  nodeMs: number[];
  version?: string | null;
};
const connect = async (name: string, text: string, size: number, since = cutoff): Promise<Variant> => {
  const sql = postgres(hold.stack.DATABASE_URL, { max: 1, onnotice: () => {} });
  const [row] = await sql<{ backend: number }[]>`select pg_backend_pid() as backend`;
  return { name, text, size, cutoff: since, sql, backend: row!.backend, pgMs: [], nodeMs: [], version: text.includes("$2") ? null : undefined };
};
const batchOf = (k: number, v: Variant) =>
  JSON.stringify(Array.from({ length: v.size }, (_, i) => ({ i, owner: owners[(k * v.size + i) % owners.length]!, cutoff: v.cutoff, usdg })));
/** One batch as the API would take it (the statement, then each owner's answer parsed), or one block's rewrite. */
const run = async (v: Variant, k: number) => {
  const params = v.version === undefined ? [batchOf(k, v)] : [batchOf(k, v), v.version];
  const rows = await v.sql.unsafe<{ i: number; account: string | null; version?: string | null }[]>(v.text, params, { prepare: true });
  for (const row of rows) {
    if (row.account) JSON.parse(row.account);
    if (row.i === -1 && row.version) v.version = row.version;
  }
};

const admin = postgres(hold.stack.DATABASE_URL, { max: 1, onnotice: () => {} });
const variants: Variant[] = [];
try {
  // The prototype's table: every owner's answer as the statement gives it now (ended items of any age, since a
  // kept row would hold them all and the read would drop those before the cutoff).
  await admin.unsafe(`create schema "${scratch}"; create table "${scratch}".account_row (owner text primary key, account text not null)`);
  for (let k = 0; k < owners.length; k += 500) {
    const slice = owners.slice(k, k + 500);
    const rows = await admin.unsafe<{ i: number; account: string }[]>(shipped, [
      JSON.stringify(slice.map((owner, i) => ({ i, owner, cutoff: 0, usdg }))),
      null,
    ]);
    const owned = rows.filter((r) => r.i >= 0); // the batch's own row (i = -1) is the shared rows
    await admin`insert into ${admin(scratch)}.account_row ${admin(owned.map((r) => ({ owner: slice[r.i]!, account: r.account })))}`;
  }
  await admin.unsafe(`analyze "${scratch}".account_row`);
  const [size] = await admin.unsafe<{ n: string; bytes: string }[]>(
    `select count(*)::text as n, avg(length(account))::int::text as bytes from "${scratch}".account_row`,
  );
  console.log(`owner rows: ${size!.n}, ${size!.bytes} characters each on average; batches of ${batchSize}, ${batches} a round, ${rounds} rounds`);

  variants.push(
    await connect("statement", shipped, batchSize),
    await connect("owner row", ownerRowRead, batchSize),
    await connect("row rewrite", rowRewrite, changedPerBlock, 0),
  );
  // Per round, each variant reads about the same owners: `batches` batches of the API's size, or as many blocks of
  // changed owners as cover them (whole statements; the figures divide by the owners each actually read).
  const perRound = (v: Variant) => Math.max(1, Math.round((batches * batchSize) / v.size));
  // Warm: each variant over the owners the rounds read (plans made, pages in shared buffers).
  for (const v of variants) for (let k = 0; k < perRound(v) * rounds; k++) await run(v, k);
  for (let round = 0; round < rounds; round++) {
    for (const v of round % 2 ? [...variants].reverse() : variants) {
      const pg0 = cpuSeconds(v.backend) ?? 0;
      const node0 = process.cpuUsage();
      const n = perRound(v);
      for (let k = round * n; k < (round + 1) * n; k++) await run(v, k);
      const node = process.cpuUsage(node0);
      v.pgMs.push((((cpuSeconds(v.backend) ?? 0) - pg0) * 1000) / (n * v.size));
      v.nodeMs.push((node.user + node.system) / 1000 / (n * v.size));
    }
  }
  const list = (xs: number[]) => xs.map((x) => x.toFixed(3)).join(" ");
  console.log("CPU per owner, medians [rounds]:");
  for (const v of variants)
    console.log(
      `${v.name.padEnd(10)} Postgres ${median(v.pgMs).toFixed(3)} ms [${list(v.pgMs)}]; this process ${median(v.nodeMs).toFixed(3)} ms [${list(v.nodeMs)}]`,
    );
} finally {
  await Promise.all(variants.map((v) => v.sql.end()));
  await admin.unsafe(`drop schema if exists "${scratch}" cascade`);
  await admin.end();
}
