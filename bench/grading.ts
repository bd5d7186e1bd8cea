// Issues 30 and 51: one report-card grading pass with many open filings and many actions that wait.
// The rows are synthetic but go into the real tables: the API schema (migrated) and the projections the
// pass reads, created from ponder.schema.ts itself (drizzle's table config: columns, keys, indexes), so
// `executed_call` is the indexer's shape. The pass is the real one (usecases/report-card/run-grading.ts).
//
// The data (sizes by env, defaults in brackets):
// - GRADING_PENDING [100,000] actions waiting, made by a real pass (the setup pass) from filings and their
//   mined calls over the 20 hours before: 40% limit orders waiting for a fill (each with its `order.placed`
//   and open `limit_order`), 30% merged-vault queued deposits waiting in the queue (`vault.deposit.requested`,
//   pending `deposit_request`), 30% grid opens waiting their day. Between the setup and the measured pass,
//   100 of the orders fill, 100 of the deposits settle and 100 grid opens come due (their day passes).
// - GRADING_FILINGS [1,000,000] open filings over GRADING_OWNERS [10,000] owners, made in the 9 minutes
//   before the pass (none can be settled): limit orders, grid opens and queued deposits (kinds that are
//   graded and read facts), in groups of 2-3 sharing one call key (contenders: other tags, some with the
//   owner's session).
// - GRADING_CALLS [200] new mined calls, each matching a group's key (with its contenders), their facts
//   indexed (`order.placed`, `limit_order`); beside them 800 mined calls no filing names, and 100,000 older calls.
// The measured pass runs GRADING_RUNS [3] times, each on a fresh copy of the loaded database (CREATE
// DATABASE ... TEMPLATE) in a process of its own: its time and that process's peak resident memory (VmHWM).
//
// `npx tsx bench/grading.ts`
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import postgres from "postgres";
import { getAddress, type Address, type Hex } from "viem";
import { createDb, migrateToLatest } from "../adapters/db/connect.js";
import { createProjectionsDb, createProjectionsPostgres } from "../adapters/db/projections.js";
import { buildGrid, buildLimitOrder, buildVaultDeposit } from "../domain/bundles/index.js";
import { callKeyOf } from "../domain/grading/index.js";
import { runGrading } from "../usecases/report-card/run-grading.js";
import { createProjectionTables, executedCallRow, poolSwapRow } from "../test/helpers/projection-tables.js";
import { ADMIN_URL, BENCH_API_SCHEMA, freshDatabase, isMain, log, median, printMachine, printResult, round, saveResult, type BenchResult } from "./lib.js";

const SCHEMA = BENCH_API_SCHEMA;
const VIEWS = "bench_views";
const hook = "0x5555555555555555555555555555555555555555" as Address;
const strategy = "0x6666666666666666666666666666666666666666" as Address;
const usdg = "0x3333333333333333333333333333333333333333" as Address;
const token = "0x4444444444444444444444444444444444444444" as Address;
const vault = "0x2222222222222222222222222222222222222222" as Address;
const E18 = 10n ** 18n;
/** The pass's time (the chain's and the service's). */
const NOW = Date.UTC(2026, 0, 2, 12);
/** The setup pass ran 10 minutes earlier. */
const SETUP = NOW - 10 * 60_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Figures of the measured pass, as the child process prints them. */
type PassFigures = { ms: number; peakMiB: number; rssBeforeMiB: number; summary: Record<string, number> };

/** Peak resident memory of this process (MiB). */
function peakRssMiB(): number {
  const line = readFileSync("/proc/self/status", "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmHWM:"));
  return Number(line!.split(/\s+/)[1]) / 1024;
}

const word = (x: bigint | number | string) => BigInt(x).toString(16).padStart(64, "0");
const MARK = 0xabcdef0123457n;
/** A builder's calldata with its amount word swapped: one encode per template, not per row. */
function templated(build: (amount: bigint) => Hex): (amount: bigint) => Hex {
  const t = build(MARK);
  const at = t.indexOf(word(MARK));
  if (at < 0 || t.indexOf(word(MARK), at + 1) >= 0) throw new Error("the amount is not one word of the calldata");
  return (amount) => `${t.slice(0, at)}${word(amount)}${t.slice(at + 64)}` as Hex;
}

type Kind = "limit-order" | "grid" | "vault-deposit";
/** A bundle's steps for kind `kind`, `owner` and `amount`: approve then the call, as the builders make them. */
function makers(owners: Address[]) {
  const order = templated(
    (amountIn) => buildLimitOrder({ owner: owners[0]!, hook, usdg, token, sellToken: false, amountIn, priceX18: 2n * E18 }).steps[1]!.data as Hex,
  );
  const grid = templated(
    (amountUsdg) =>
      buildGrid({ owner: owners[0]!, strategy, action: "open", usdg, token, buyPriceX18: 2n * E18, sellPriceX18: 3n * E18, amountUsdg, repeat: true }).steps[1]!
        .data as Hex,
  );
  const deposits = new Map<Address, (a: bigint) => Hex>();
  const deposit = (owner: Address) => {
    let d = deposits.get(owner);
    if (!d) {
      d = templated((assets) => buildVaultDeposit({ family: "merged", owner, vault, usdg, assets, minShares: 0n }).steps[1]!.data as Hex);
      deposits.set(owner, d);
    }
    return d;
  };
  return (kind: Kind, owner: Address, amount: bigint) => {
    const [to, data, approveTo] =
      kind === "limit-order" ? [hook, order(amount), hook] : kind === "grid" ? [strategy, grid(amount), strategy] : [vault, deposit(owner)(amount), vault];
    const approve = `0x095ea7b3${word(approveTo)}${word(amount)}`;
    return [
      { to: usdg, data: approve, value: "0" },
      { to, data, value: "0" },
    ];
  };
}

/** Inserts rows in statements of at most 60,000 parameters. */
async function insertMany(sql: postgres.Sql, table: string, rows: Record<string, unknown>[]): Promise<void> {
  if (rows.length === 0) return;
  const per = Math.floor(60_000 / Object.keys(rows[0]!).length);
  const [schema, name] = table.split(".") as [string, string];
  for (let i = 0; i < rows.length; i += per) await sql`insert into ${sql(schema)}.${sql(name)} ${sql(rows.slice(i, i + per) as never)}`;
}

const txOf = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;
const blockOf = (t: number) => 1_000_000 + Math.floor((t - (NOW - 3 * DAY)) / 1000);
const secs = (t: number) => Math.floor(t / 1000);
const position = (block: number, logIndex: number) => (BigInt(block) * 1_000_000n + BigInt(logIndex) * 10n).toString();

/** A trade of the token at `t` (ms). */
const swapAt = (t: number, priceX18: bigint) => poolSwapRow(token, secs(t), priceX18, blockOf(t));

/** Loads the database (the setup pass included) that each measured pass starts from. */
async function load(url: string, p: Sizes): Promise<void> {
  const raw = postgres(url, { max: 2, onnotice: () => {} });
  const db = createDb({ url, schema: SCHEMA, max: 4 });
  const reads = createProjectionsDb({ sql: createProjectionsPostgres({ url, max: 4 }), viewsSchema: VIEWS });
  try {
    await migrateToLatest(db, SCHEMA);
    await createProjectionTables(raw, VIEWS);
    const owners = Array.from({ length: p.owners }, (_, i) => getAddress(`0x${(0x10000 + i).toString(16).padStart(40, "0")}`));
    const stepsOf = makers(owners);
    const lower = (a: Address) => a.toLowerCase();
    let tx = 0;
    const calls: Record<string, unknown>[] = [];
    const changes: Record<string, unknown>[] = [];
    const orders: Record<string, unknown>[] = [];
    const requests: Record<string, unknown>[] = [];
    const call = (from: Address, to: string, input: string, at: number) => {
      const hash = txOf(++tx);
      calls.push(executedCallRow({ txHash: hash, from: lower(from), to, input, blockNumber: blockOf(at), timestamp: secs(at) }));
      return hash;
    };
    const change = (
      owner: Address,
      kind: string,
      subject: string,
      contract: string,
      data: Record<string, unknown>,
      hash: string,
      at: number,
      logIndex: number,
    ) =>
      changes.push({
        owner: lower(owner),
        position: position(blockOf(at), logIndex),
        kind,
        subject,
        contract: contract.toLowerCase(),
        data: raw.json(data as postgres.JSONValue),
        tx_hash: hash,
        block_number: String(blockOf(at)),
        block_hash: txOf(blockOf(at)),
        log_index: logIndex,
        timestamp: secs(at),
      });
    let orderId = 0;
    let requestId = 0;
    /** A mined bundle of `kind`: its call and the facts the indexer logs for it (orders and queue requests). */
    const execute = (kind: Kind, owner: Address, amount: bigint, at: number, steps: { to: string; data: string }[]) => {
      const hash = call(owner, steps[1]!.to, steps[1]!.data.toLowerCase(), at);
      // Noise every transaction logs: the USDG leaving the owner.
      change(owner, "token.transfer", usdg, usdg, { delta: String(-amount), counterparty: steps[1]!.to }, hash, at, 1);
      if (kind === "limit-order") {
        const id = ++orderId;
        const data = { token, sellToken: false, amountIn: String(amount), priceX18: String(2n * E18), market: false };
        change(owner, "order.placed", String(id), hook, data, hash, at, 2);
        orders.push({
          id: String(id),
          owner: lower(owner),
          token,
          sell_token: false,
          market: false,
          amount_in: String(amount),
          price_x_18: String(2n * E18),
          filled_in: "0",
          filled_out: "0",
          commission: "0",
          remaining: String(amount),
          owed0: "0",
          owed1: "0",
          claimed0: "0",
          claimed1: "0",
          state: "open",
          close_reason: null,
          created_at: secs(at),
          updated_at: secs(at),
        });
        return { hash, id };
      }
      if (kind === "vault-deposit") {
        const id = ++requestId;
        change(owner, "vault.deposit.requested", vault, vault, { id: String(id), assets: String(amount), minShares: "0", receiver: lower(owner) }, hash, at, 2);
        requests.push({
          queue: vault,
          id: String(id),
          vault,
          owner: lower(owner),
          receiver: lower(owner),
          assets: String(amount),
          min_shares: "0",
          state: "pending",
          shares: null,
          requested_at: secs(at),
          updated_at: secs(at),
        });
        return { hash, id };
      }
      return { hash, id: 0 };
    };
    const flush = async () => {
      await insertMany(raw, `${VIEWS}.executed_call`, calls.splice(0));
      await insertMany(raw, `${VIEWS}.activity`, changes.splice(0));
      await insertMany(raw, `${VIEWS}.limit_order`, orders.splice(0));
      await insertMany(raw, `${VIEWS}.deposit_request`, requests.splice(0));
    };
    const started = performance.now();

    // Prices: a trade of the token every 10 minutes over 3 days, up to the setup pass.
    const swaps = [];
    for (let t = NOW - 3 * DAY; t <= SETUP; t += 600_000) swaps.push(swapAt(t, 2n * E18 + BigInt((t / 600_000) % 7) * 10n ** 17n));

    // 1. The actions that will wait: filed, mined 30 s later, over the 20 hours before the setup pass; the
    // first 100 grid opens a little over a day before the pass, so their day comes between the passes.
    const pendingKinds: Kind[] = ["limit-order", "vault-deposit", "grid"];
    const filings: Record<string, unknown>[] = [];
    const placed: { id: number; owner: Address; amount: bigint }[] = [];
    const queued: { id: number; owner: Address; amount: bigint }[] = [];
    for (let i = 0; i < p.pending; i++) {
      const kind = i < 100 ? "grid" : pendingKinds[i < p.pending * 0.4 ? 0 : i < p.pending * 0.7 ? 1 : 2]!;
      const owner = owners[(i * 7) % p.owners]!;
      const amount = 1_000_000n + BigInt(i);
      const execAt = i < 100 ? NOW - DAY - 5 * 60_000 + i * 1000 : SETUP - 20 * HOUR + Math.floor((i * (20 * HOUR - 60_000)) / p.pending);
      const steps = stepsOf(kind, owner, amount);
      filings.push({
        id: `p${i}`,
        owner: lower(owner),
        agent_tag: `agent${i % 3}`,
        kind,
        steps: raw.json(steps),
        created_at: new Date(execAt - 30_000),
        call_key: callKeyOf(steps[1]!.to, steps[1]!.data),
      });
      const { id } = execute(kind, owner, amount, execAt, steps);
      if (kind === "limit-order") placed.push({ id, owner, amount });
      if (kind === "vault-deposit") queued.push({ id, owner, amount });
      if (calls.length >= 20_000) await flush();
    }
    // Older calls of the same owners that no filing names.
    for (let i = 0; i < 100_000; i++) call(owners[i % p.owners]!, hook, `0xdeadbeef${word(i)}`, NOW - 3 * DAY + i * 2000);
    await flush();
    await insertMany(raw, `${SCHEMA}.filing`, filings.splice(0));
    await insertMany(raw, `${VIEWS}.pool_swap`, swaps);
    await raw.unsafe(`analyze`);
    log(`loaded ${p.pending} filings to wait and their calls in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    // 2. The setup pass: the real pass matches them all and stores each one waiting.
    const setupStarted = performance.now();
    const setup = await runGrading({ db, reads, now: () => new Date(SETUP) });
    log(`setup pass: ${JSON.stringify(setup)} in ${((performance.now() - setupStarted) / 1000).toFixed(1)} s`);
    if (setup.waiting < p.pending) throw new Error(`the setup pass left ${setup.waiting} of ${p.pending} waiting`);

    // 3. Between the passes: 100 orders fill, 100 deposits settle, and trades go on up to the pass.
    const eventAt = NOW - 5 * 60_000;
    for (const [k, o] of placed.slice(0, 100).entries()) {
      const hash = txOf(++tx);
      change(
        o.owner,
        "order.filled",
        String(o.id),
        hook,
        { amountIn: String(o.amount), amountOut: String((o.amount * 10n ** 12n) / 2n), commission: "0", remaining: "0" },
        hash,
        eventAt + k * 1000,
        3,
      );
      await raw`update ${raw(VIEWS)}.limit_order set state = 'filled', filled_in = ${String(o.amount)}, filled_out = ${String((o.amount * 10n ** 12n) / 2n)}, remaining = 0, updated_at = ${secs(eventAt + k * 1000)} where id = ${o.id}`;
    }
    for (const [k, r] of queued.slice(0, 100).entries()) {
      const hash = txOf(++tx);
      change(
        r.owner,
        "vault.deposit.settled",
        vault,
        vault,
        { id: String(r.id), assets: String(r.amount), shares: String(r.amount) },
        hash,
        eventAt + k * 1000,
        4,
      );
      await raw`update ${raw(VIEWS)}.deposit_request set state = 'settled', shares = ${String(r.amount)}, updated_at = ${secs(eventAt + k * 1000)} where queue = ${vault} and id = ${r.id}`;
    }
    const later = [];
    for (let t = SETUP + 60_000; t <= NOW; t += 60_000) later.push(swapAt(t, 2n * E18));
    await insertMany(raw, `${VIEWS}.pool_swap`, later);

    // 4. The open filings, in groups of 2-3 sharing a call key, made in the 9 minutes before the pass.
    const loadStarted = performance.now();
    const openKinds: Kind[] = ["limit-order", "grid", "vault-deposit"];
    let filed = 0;
    let heads: { owner: Address; kind: Kind; amount: bigint; steps: ReturnType<typeof stepsOf>; at: number }[] = [];
    const every = Math.floor(p.filings / 2.5 / p.calls);
    for (let g = 0; filed < p.filings; g++) {
      const owner = owners[g % p.owners]!;
      const kind = openKinds[g % 3]!;
      const amount = 2_000_000n + BigInt(g);
      const steps = stepsOf(kind, owner, amount);
      const key = callKeyOf(steps[1]!.to, steps[1]!.data);
      const size = Math.min(2 + (g % 2), p.filings - filed);
      const at = NOW - 60_000 - ((g * 7919) % 480_000);
      for (let m = 0; m < size; m++)
        filings.push({
          id: `o${filed + m}`,
          owner: lower(owner),
          // Contenders: group by group, one tag, two tags, or one with the owner's session.
          agent_tag: g % 4 === 1 ? `agent${m}` : "agent0",
          kind,
          steps: raw.json(steps),
          created_at: new Date(at + m * 1000),
          call_key: key,
          owner_session: g % 4 === 2 && m === size - 1,
          client: `ip:10.0.${g % 250}.${m}`,
        });
      filed += size;
      if (g % every === heads.length % 4 && heads.length < p.calls) heads.push({ owner, kind, amount, steps, at: at + size * 1000 + 30_000 });
      if (filings.length >= 20_000) await insertMany(raw, `${SCHEMA}.filing`, filings.splice(0));
    }
    await insertMany(raw, `${SCHEMA}.filing`, filings.splice(0));
    if (heads.length < p.calls) throw new Error(`only ${heads.length} groups to mine`);
    heads = heads.slice(0, p.calls);
    // 5. The new calls (with their facts) and 800 calls no filing names, in the same minutes.
    for (const h of heads) execute(h.kind, h.owner, h.amount, Math.min(h.at, NOW - 1000), h.steps);
    for (let i = 0; i < 800; i++) call(owners[(i * 13) % p.owners]!, hook, `0xfeedface${word(i)}`, NOW - 9 * 60_000 + i * 500);
    await flush();
    await raw.unsafe(`vacuum analyze`);
    log(`loaded ${p.filings} open filings over ${p.owners} owners and ${p.calls} new calls in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s`);
  } finally {
    await Promise.allSettled([db.destroy(), reads.destroy(), raw.end()]);
  }
}

/** One measured pass on the database at `url` (in a process of its own). */
async function measure(url: string): Promise<PassFigures> {
  const db = createDb({ url, schema: SCHEMA, max: 4 });
  const reads = createProjectionsDb({ sql: createProjectionsPostgres({ url, max: 4 }), viewsSchema: VIEWS });
  try {
    global.gc?.();
    const rssBeforeMiB = process.memoryUsage().rss / 2 ** 20;
    const started = performance.now();
    const summary = await runGrading({ db, reads, now: () => new Date(NOW) });
    const ms = performance.now() - started;
    return { ms, peakMiB: peakRssMiB(), rssBeforeMiB, summary };
  } finally {
    await Promise.allSettled([db.destroy(), reads.destroy()]);
  }
}

type Sizes = { filings: number; owners: number; calls: number; pending: number; runs: number };

export async function benchGrading(p: Sizes): Promise<BenchResult> {
  const template = await freshDatabase("agent_bench_grading");
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  const runs: PassFigures[] = [];
  try {
    await load(template.url, p);
    for (let r = 0; r < p.runs; r++) {
      const name = `${template.name}_run${r}_${randomBytes(3).toString("hex")}`;
      await admin.unsafe(`create database "${name}" template "${template.name}"`);
      try {
        const url = Object.assign(new URL(ADMIN_URL), { pathname: `/${name}` }).toString();
        const child = spawnSync(process.execPath, [...process.execArgv, new URL(import.meta.url).pathname], {
          env: { ...process.env, GRADING_PASS_URL: url },
          encoding: "utf8",
          maxBuffer: 64 * 2 ** 20,
        });
        const line = child.stdout.split("\n").find((l) => l.startsWith("{"));
        if (child.status !== 0 || !line) throw new Error(`the pass failed: ${child.stderr.slice(-2000)}`);
        const figures = JSON.parse(line) as PassFigures;
        log(`run ${r + 1}: ${Math.round(figures.ms)} ms, peak ${Math.round(figures.peakMiB)} MiB, ${JSON.stringify(figures.summary)}`);
        if (figures.summary.matched !== p.calls) throw new Error(`matched ${figures.summary.matched} of ${p.calls} new calls`);
        runs.push(figures);
      } finally {
        await admin.unsafe(`drop database if exists "${name}" with (force)`);
      }
    }
  } finally {
    await admin.end();
    await template.drop();
  }
  const ms = median(runs.map((r) => r.ms));
  const peak = median(runs.map((r) => r.peakMiB));
  return {
    name: "grading",
    figures: [
      {
        name: `grading pass (median of ${runs.length}), ${p.filings} open filings, ${p.pending} waiting, ${p.calls} new calls`,
        value: round(ms),
        unit: "ms",
        target: "< 2000",
        pass: ms < 2000,
      },
      { name: "peak resident memory of the pass's process (median)", value: round(peak), unit: "MiB", target: "< 512", pass: peak < 512 },
      { name: "each run", value: runs.map((r) => `${Math.round(r.ms)} ms / ${Math.round(r.peakMiB)} MiB`).join(", ") },
    ],
    notes: [`${p.owners} owners; summaries ${runs.map((r) => JSON.stringify(r.summary)).join(" ")}`],
  };
}

if (isMain(import.meta.url)) {
  if (process.env.GRADING_PASS_URL) {
    console.log(JSON.stringify(await measure(process.env.GRADING_PASS_URL)));
    process.exit(0);
  }
  printMachine();
  const result = await benchGrading({
    filings: Number(process.env.GRADING_FILINGS ?? 1_000_000),
    owners: Number(process.env.GRADING_OWNERS ?? 10_000),
    calls: Number(process.env.GRADING_CALLS ?? 200),
    pending: Number(process.env.GRADING_PENDING ?? 100_000),
    runs: Number(process.env.GRADING_RUNS ?? 3),
  });
  printResult(result);
  saveResult(result);
  process.exit(0);
}
