// Changing answers (issue 23): agents poll their activity feed once a second while their answers keep
// changing. A still devnet (1 day of history) and its indexer; the API as `npm run api` (1 or more
// replicas of one deployment); `agents` agents, each on an owner of its own and its own client
// (X-Forwarded-For, TRUST_PROXY_HOPS=1). Once every agent holds a baseline, a writer makes one block a
// second: one transaction (Multicall3) that moves 1 wei of a vault's shares from a test wallet to
// `changeShare` of the owners (in turn, so every owner changes every 1/changeShare blocks). Each
// transfer is one activity change of its receiver.
//
// It prints polls/s, poll p50/p99, the read cache's hit rate, Postgres transactions per second (each
// read is one) and its CPU per block, block-to-visible latency (the writer's receipt of a block to the
// answer that first shows a change of it) at p50 and p99, and how many of the changes sent were
// delivered exactly once and in order: it must be all of them.
//
// With several APIs, `routing` says how agents are spread: "owner" (an agent always reaches the same
// replica, as a load balancer hashing on the owner would) or "random" (every poll to any replica).
// Beside the measured figures it prints the capacity model's prediction (bench/README.md "Capacity").
//
// `npx tsx bench/changing-answers.ts` (CHANGING_AGENTS 2000, CHANGING_SECONDS 60, CHANGING_SHARE 0.1,
// CHANGING_APIS 1, CHANGING_ROUTING owner; CHANGING_BASELINE=1 also runs the minimal Ponder app live on the
// same devnet, for the write side's ratio to it; CHANGING_HISTORY_ROWS 1,000,000 rows of other owners' history;
// CHANGING_WAIT_MS=25000: the agents long-poll instead).
//
// Standbys (issue 53): CHANGING_STANDBY=compare runs it twice in one go on a Postgres primary and a
// pg_basebackup standby of the bench's own (test/helpers/pg-standby.ts), the APIs reading the primary,
// then the standby (DATABASE_READ_URL), and prints the primary's CPU per poll (every process of its
// server: backends, WAL sender, writers) and the standby's, side by side. CHANGING_STANDBY=on: that second run only.
import { readFileSync, writeFileSync } from "node:fs";
import { Agent } from "node:http";
import { join } from "node:path";
import { Redis } from "ioredis";
import postgres from "postgres";
import { createPublicClient, createWalletClient, encodeFunctionData, http, type Address, type Hex } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { multicall3Abi, testTokenAbi } from "../abis/index.js";
import { devnetChain, multicall3Address, TEST_MNEMONIC } from "../devnet/chain.js";
import { dropDeployment, newDeployment, startApi, type ApiProcess } from "../test/helpers/api-process.js";
import { startStack } from "../test/helpers/stack.js";
import { startStandbyPair, type StandbyPair } from "../test/helpers/pg-standby.js";
import { baselinesTaken, startPollingAgents } from "./agents.js";
import { cacheCounts } from "./read-speed.js";
import {
  backendSides,
  cpuSeconds,
  postgresCpu,
  postgresCpuOf,
  postgresCpuSince,
  resetStatementCounters,
  statementCounters,
  repoRoot,
  isMain,
  startIndexer,
  treeCpuSeconds,
  waitReady,
  type Indexer,
  log,
  percentile,
  printMachine,
  printResult,
  rssMiB,
  saveResult,
  type BenchResult,
  type Figure,
} from "./lib.js";

const REDIS_URL = process.env.REDIS_URL || "redis://127.0.0.1:6379";
const BLOCK_MS = 1000;
const SOCKETS = 256;
/** Test wallets that may hold vault shares after the devnet's seeding. */
const WALLETS = Array.from({ length: 10 }, (_, i) => i);

export type Routing = "owner" | "random";
export type ChangingOptions = {
  agents?: number;
  seconds?: number;
  changeShare?: number;
  apis?: number;
  routing?: Routing;
  /** > 0: agents long-poll (`waitMs`, sent again on each answer) instead of polling once a second. */
  waitMs?: number;
  /** Activity rows of other owners already in the log before the window (a deployment's history; 0 for none). */
  historyRows?: number;
  /** Also run the minimal Ponder app (bench/baseline-app: each event one row) live on the same devnet, into its own database: its Postgres CPU per event. */
  baseline?: boolean;
  /**
   * On a primary and a standby of the bench's own: "off" the APIs read the primary, "on" they read the standby
   * (DATABASE_READ_URL). Unset: the machine's Postgres, as before.
   */
  standby?: "off" | "on";
};

/** The postmaster's pid of a server of test/helpers/pg-standby.ts (the first line of postmaster.pid). */
const postmasterOf = (dataDir: string) => Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);

/**
 * The capacity model (bench/README.md): a poll's cache hit rate when each answer stays the same for
 * `pollsPerAnswer` polls of one agent. The first poll after a change misses (new rows), and so does the
 * first poll with the new cursor at each replica it reaches: one replica under "owner" routing, and
 * under "random" routing the expected number of distinct replicas among the answer's other polls.
 */
export function predictedHitRate(pollsPerAnswer: number, apis: number, routing: Routing): number {
  const rest = Math.max(0, pollsPerAnswer - 1);
  const replicas = routing === "owner" || apis === 1 ? Math.min(1, rest) : apis * (1 - (1 - 1 / apis) ** rest);
  return Math.max(0, 1 - (1 + replicas) / pollsPerAnswer);
}

/** The per-request costs the model is built from, as the last read-speed run measured them (bench/results/read-speed.json). */
type ReadCosts = { apiHitMs: number; apiMissMs: number; pgTxHit: number; pgTxMiss: number; pgMissMs: number };

function lastReadCosts(): ReadCosts | undefined {
  try {
    const r = JSON.parse(readFileSync(join(repoRoot, "bench", "results", "read-speed.json"), "utf8")) as BenchResult;
    const value = (name: string) => {
      const v = r.figures.find((f) => f.name === `GET activity?cursor, ${name}`)?.value;
      if (typeof v !== "number") throw new Error(`read-speed.json lacks ${name}`);
      return v;
    };
    return {
      apiHitMs: value("cached: API CPU per request"),
      apiMissMs: value("uncached: API CPU per request"),
      pgTxHit: value("cached: Postgres transactions per request"),
      pgTxMiss: value("uncached: Postgres transactions per request"),
      pgMissMs: value("uncached: Postgres CPU per request"),
    };
  } catch {
    return undefined;
  }
}

const HISTORY_OWNERS = 50_000;

/**
 * The history a deployment in service holds: `rows` changes of other owners, spread over blocks 1 to
 * head - 1 (below every position the window writes, so the version tracker never takes them for new),
 * then ANALYZE, as autovacuum keeps a settled database. Without it the log starts with a few hundred
 * rows and grows 30-fold in the window, and the API's statements keep plans made for the small table.
 * Written past Ponder's triggers (no reorg may revert them), as bench/read-speed.ts loads its rows.
 */
async function loadHistory(sql: postgres.Sql, schema: string, rows: number, head: number) {
  const blocks = Math.max(1, head - 2);
  await sql.begin(async (tx) => {
    await tx.unsafe("set local session_replication_role = replica");
    await tx.unsafe(`
      insert into "${schema}".activity (owner, position, kind, subject, contract, data, tx_hash, block_number, block_hash, log_index, timestamp)
      select '0x' || substr(md5('history-owner-' || (i % ${HISTORY_OWNERS})), 1, 32) || lpad(to_hex(i % ${HISTORY_OWNERS}), 8, '0'),
             (1 + i::bigint * ${blocks} / ${rows}) * 1000000 + i % 999999,
             'vault.shares', '0x' || repeat('ab', 20), '0x' || repeat('ab', 20), json_build_object('delta', i::text),
             '0x' || md5('tx-' || i) || md5('tx2-' || i), 1 + i::bigint * ${blocks} / ${rows},
             '0x' || md5('block-' || i) || md5('hash-' || i), 0, 1700000000 + i % 86400
      from generate_series(0, ${rows - 1}) i`);
  });
  await sql.unsafe(`analyze "${schema}".activity`);
}

export async function benchChangingAnswers({
  agents = 2000,
  seconds = 60,
  changeShare = 0.1,
  apis = 1,
  routing = "owner",
  baseline = false,
  historyRows = 1_000_000,
  waitMs = 0,
  standby,
}: ChangingOptions = {}): Promise<BenchResult> {
  const name = `${apis === 1 ? "changing-answers" : `changing-answers-${apis}-apis-${routing}`}${waitMs > 0 ? "-long-poll" : ""}${standby ? `-standby-${standby}` : ""}`;
  log(`${name}: a still devnet, its indexer, ${apis} API process(es); ${agents} agents for ${seconds} s, ${changeShare * 100}% of owners changing per block`);
  const pair: StandbyPair | undefined = standby ? await startStandbyPair() : undefined;
  const stack = await startStack({ historyDays: 1, simIntervalMs: 3_600_000, ...(pair ? { adminUrl: pair.primary.adminUrl } : {}) });
  const standbyUrl = pair?.standby.url(new URL(stack.databaseUrl).pathname.slice(1));
  const readEnv: Record<string, string> = standby === "on" ? { DATABASE_READ_URL: standbyUrl! } : {};
  const deployment = newDeployment();
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  const sql = postgres(stack.databaseUrl, { max: 2, onnotice: () => {} });
  const stop = new AbortController();
  // A long poll holds its socket while it waits: one socket per agent then.
  const pool = new Agent({ keepAlive: true, maxSockets: waitMs > 0 ? agents + 16 : SOCKETS });
  const replicas: ApiProcess[] = [];
  let minimal: Indexer | undefined;
  try {
    if (baseline) {
      minimal = await startIndexer("baseline", { deploymentsFile: stack.deploymentsFile, port: Number(new URL(stack.rpcUrl).port) });
      await waitReady(minimal);
      log("the minimal Ponder app is live on the same devnet");
    }
    if (historyRows > 0) {
      const t0 = performance.now();
      await loadHistory(sql, stack.schema, historyRows, Number(await createPublicClient({ transport: http(stack.rpcUrl) }).getBlockNumber()));
      log(
        `${historyRows} activity rows of ${HISTORY_OWNERS} other owners loaded below the head, and analyzed, in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
      );
    }
    for (let i = 0; i < apis; i++)
      replicas.push(await startApi(stack, deployment, { name: `api${i}`, env: { TRUST_PROXY_HOPS: "1", LOG_LEVEL: "warn", ...readEnv } }));

    // The writer: a test wallet holding a vault's shares, which lets Multicall3 move them.
    const wallets = WALLETS.map((i) => mnemonicToAccount(TEST_MNEMONIC, { addressIndex: i }));
    const holding = (
      await sql<{ owner: string; vault: string; shares: string }[]>`
        select p.owner, p.vault, p.shares::text as shares from ${sql(stack.schema)}.vault_position p
        where p.owner in ${sql(wallets.map((w) => w.address.toLowerCase()))} and p.shares > 1000000000
        order by p.shares desc limit 1`
    )[0];
    if (!holding) throw new Error("no test wallet holds vault shares after seeding");
    const chain = { ...devnetChain, rpcUrls: { default: { http: [stack.rpcUrl] } } };
    const client = createPublicClient({ chain, transport: http(stack.rpcUrl), pollingInterval: 10 });
    const account = wallets.find((w) => w.address.toLowerCase() === holding.owner)!;
    const wallet = createWalletClient({ chain, transport: http(stack.rpcUrl), account });
    const vault = holding.vault as Address;
    const approval = await wallet.writeContract({ address: vault, abi: testTokenAbi, functionName: "approve", args: [multicall3Address, 2n ** 255n] });
    await client.waitForTransactionReceipt({ hash: approval, pollingInterval: 10 });

    const owners = Array.from({ length: agents }, (_, i) => `0x${"cd".repeat(10)}${(i + 1).toString(16).padStart(20, "0")}`);
    const replicaOf = (index: number) => replicas[routing === "owner" ? index % apis : Math.floor(Math.random() * apis)]!;
    const agentsRun = startPollingAgents(owners, pool, (index) => replicaOf(index).url, stop.signal, waitMs);
    const { latencies, failures, delivered, baselines } = agentsRun;
    // Latencies count from the writer's first block (the baselines' burst is not the steady state).
    agentsRun.measuring = false;
    await baselinesTaken(agentsRun, owners.length);
    if (baselines.size < owners.length) throw new Error(`${baselines.size} of ${owners.length} baselines; ${failures.slice(0, 3).join("; ")}`);
    log(`${baselines.size} agents hold a baseline; writing a block a second`);

    // The measured window: the writer's blocks.
    const perBlock = Math.max(1, Math.ceil(agents * changeShare));
    const sentTo = new Map<string, string[]>(); // owner → tx hashes of its changes, in block order
    const receiptAt = new Map<string, number>(); // tx hash → when the writer held its receipt
    const blockOf = new Map<string, number>(); // tx hash → its block
    const cache0 = await Promise.all(replicas.map((r) => cacheCounts(r.metricsUrl, "activity")));
    const cpu0 = replicas.map((r) => cpuSeconds(r.child.pid) ?? 0);
    const database = new URL(stack.databaseUrl).pathname.slice(1);
    // On a pair: the primary's backends of this database apart (the standby's carry the same name), and each server whole.
    const servers = pair ? { primary: postmasterOf(pair.primary.dataDir), standby: postmasterOf(pair.standby.dataDir) } : undefined;
    const pgCpu0 = postgresCpu(database, servers?.primary);
    const serverCpu0 = servers && { primary: postgresCpu(undefined, servers.primary), standby: postgresCpu(undefined, servers.standby) };
    const reads0 = standby === "on" ? await Promise.all(replicas.map((r) => projectionReads(r.metricsUrl))) : undefined;
    const minimalCpu0 = minimal ? postgresCpu(minimal.db.name) : undefined;
    const minimalNode0 = treeCpuSeconds(minimal?.process.pid) ?? 0;
    // The rest of the machine's CPU in the window: the indexer and the devnet (process trees), and this process (the agents and the writer).
    const others0 = { indexer: treeCpuSeconds(stack.indexer?.pid) ?? 0, devnet: treeCpuSeconds(stack.devnet.pid) ?? 0, load: process.cpuUsage() };
    const xacts = async () =>
      Number((await sql<{ n: string }[]>`select (xact_commit + xact_rollback)::text as n from pg_stat_database where datname = current_database()`)[0]!.n);
    const xact0 = await xacts();
    // When each block's index commit is heard: Ponder's live-query NOTIFY, sent at commit, as the API's
    // version tracker hears it; the block is read from the checkpoint it committed.
    const indexedAt = new Map<number, number>();
    const heard = async () => {
      const t = performance.now();
      const [row] = await sql<{ c: string }[]>`select latest_checkpoint as c from ${sql(stack.schema)}._ponder_checkpoint`;
      // Ponder's checkpoint: 10 digits of timestamp, 16 of chain id, then 16 of block number.
      const block = row ? Number(row.c.slice(26, 42)) : 0;
      if (!indexedAt.has(block)) indexedAt.set(block, t);
    };
    const listeners = await Promise.all([stack.schema, stack.viewsSchema].map((s) => sql.listen(`${s}_live_query`, () => void heard().catch(() => {}))));
    const counting = await resetStatementCounters(sql);
    const polls0 = agentsRun.polls;
    const started = performance.now();
    agentsRun.measuring = true;
    let blocks = 0;
    let writeErrors = 0;
    const rss: number[] = [];
    const writeUntil = Date.now() + (seconds - 5) * 1000;
    while (Date.now() < writeUntil && failures.length < 100) {
      const tick = Date.now();
      const chosen = Array.from({ length: perBlock }, (_, k) => owners[(blocks * perBlock + k) % owners.length]!);
      const calls = chosen.map((to) => ({
        target: vault,
        allowFailure: false,
        callData: encodeFunctionData({ abi: testTokenAbi, functionName: "transferFrom", args: [account.address, to as Address, 1n] }),
      }));
      try {
        const hash: Hex = await wallet.writeContract({
          address: multicall3Address,
          abi: multicall3Abi,
          functionName: "aggregate3",
          args: [calls],
          gas: 25_000_000n,
        });
        const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 10 });
        receiptAt.set(hash.toLowerCase(), performance.now());
        blockOf.set(hash.toLowerCase(), Number(receipt.blockNumber));
        if (receipt.status !== "success") throw new Error(`block ${blocks}: reverted`);
        for (const to of chosen) sentTo.set(to, [...(sentTo.get(to) ?? []), hash.toLowerCase()]);
        blocks++;
      } catch (error) {
        writeErrors++;
        log(`writer: ${(error as Error).message.slice(0, 200)}`);
      }
      if (blocks % 10 === 0) rss.push(...replicas.map((r) => rssMiB(r.child.pid!)));
      await new Promise((r) => setTimeout(r, Math.max(0, BLOCK_MS - (Date.now() - tick))));
    }
    const windowS = (performance.now() - started) / 1000;
    const cache1 = await Promise.all(replicas.map((r) => cacheCounts(r.metricsUrl, "activity")));
    const cpu1 = replicas.map((r) => cpuSeconds(r.child.pid) ?? 0);
    const pgCpu1 = postgresCpu(database, servers?.primary);
    const serverCpu1 = servers && { primary: postgresCpu(undefined, servers.primary), standby: postgresCpu(undefined, servers.standby) };
    const reads1 = standby === "on" ? await Promise.all(replicas.map((r) => projectionReads(r.metricsUrl))) : undefined;
    const others = {
      indexer: (treeCpuSeconds(stack.indexer?.pid) ?? 0) - others0.indexer,
      devnet: (treeCpuSeconds(stack.devnet.pid) ?? 0) - others0.devnet,
      load: (() => {
        const u = process.cpuUsage(others0.load);
        return (u.user + u.system) / 1e6;
      })(),
    };
    const minimalCpuMs = minimal && minimalCpu0 ? postgresCpuSince(minimalCpu0, postgresCpu(minimal.db.name)) * 1000 : undefined;
    const minimalNodeMs = ((treeCpuSeconds(minimal?.process.pid) ?? 0) - minimalNode0) * 1000;
    const sides = await backendSides(sql, stack.schema);
    const statements = counting ? await statementCounters(sql, 80) : [];
    const xact1 = await xacts();
    const windowPolls = agentsRun.polls - polls0;
    agentsRun.measuring = false;

    // The last block reaches the index, then every agent polls at least twice more.
    const head = Number(await client.getBlockNumber());
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
      const res = await fetch(`${stack.ponderUrl}/status`)
        .then((r) => r.json() as Promise<Record<string, { block?: { number?: number } }>>)
        .catch(() => ({}));
      if ((Object.values(res)[0]?.block?.number ?? 0) >= head) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 2_500));
    stop.abort();
    await agentsRun.done;
    for (const l of listeners) await l.unlisten().catch(() => {});

    // Every change sent, against what its owner's agent was given: once each, in order, nothing else.
    const rows = await sql<{ owner: string; position: string; tx_hash: string }[]>`
      select owner, position::text as position, tx_hash from ${sql(stack.schema)}.activity as a where owner in ${sql(owners)} order by owner, a.position`;
    const table = new Map<string, string[]>();
    for (const r of rows) if (BigInt(r.position) > BigInt(baselines.get(r.owner) ?? "0")) table.set(r.owner, [...(table.get(r.owner) ?? []), r.position]);
    const findings: string[] = [];
    let sent = 0;
    let exactlyOnce = 0;
    let wrongOwners = 0;
    const visible: number[] = [];
    // block to visible, in three parts: receipt to index commit, commit to the poll that carried it being sent, and that poll's answer.
    const indexing: number[] = [];
    const pollWait: number[] = [];
    const answering: number[] = [];
    for (const owner of owners) {
      const want = sentTo.get(owner) ?? [];
      const got = delivered.get(owner) ?? [];
      sent += want.length;
      const inOrder =
        got.map((c) => c.id).join(",") === (table.get(owner) ?? []).join(",") && got.map((c) => c.txHash.toLowerCase()).join(",") === want.join(",");
      if (inOrder) exactlyOnce += want.length;
      else if (++wrongOwners <= 5) findings.push(`${owner}: given [${got.map((c) => c.txHash.slice(0, 10))}], sent [${want.map((h) => h.slice(0, 10))}]`);
      for (const c of got) {
        const mined = receiptAt.get(c.txHash.toLowerCase());
        if (mined === undefined) continue;
        visible.push(c.at - mined);
        const committed = indexedAt.get(blockOf.get(c.txHash.toLowerCase()) ?? -1);
        if (committed === undefined) continue;
        indexing.push(committed - mined);
        pollWait.push(Math.max(0, c.asked - committed));
        answering.push(c.at - Math.max(c.asked, committed));
      }
    }
    latencies.sort((a, b) => a - b);
    for (const list of [visible, indexing, pollWait, answering]) list.sort((a, b) => a - b);
    const changedOwners = Math.max(1, blocks * perBlock);
    const indexerPgMs = postgresCpuOf(pgCpu0, pgCpu1, (pid) => sides.get(pid) === "indexer") * 1000;
    const apiPgMs = postgresCpuOf(pgCpu0, pgCpu1, (pid) => sides.get(pid) !== "indexer") * 1000;
    const hits = cache1.reduce((n, c, i) => n + c.hit - cache0[i]!.hit, 0);
    const answered = cache1.reduce((n, c, i) => n + c.hit + c.miss + c.bypass - cache0[i]!.hit - cache0[i]!.miss - cache0[i]!.bypass, 0);
    const hitRate = answered > 0 ? hits / answered : NaN;
    const bypassed = cache1.reduce((n, c, i) => n + c.bypass - cache0[i]!.bypass, 0);
    const apiCpuMsPerPoll = (cpu1.reduce((n, c, i) => n + c - cpu0[i]!, 0) * 1000) / Math.max(1, windowPolls);
    const pgTxPerS = (xact1 - xact0) / windowS;
    const pollsPerS = windowPolls / windowS;
    // The model's inputs from this run's load: how many polls an answer stands for (the polls an agent made
    // between its owner's changes), and the share of polls that bypassed the cache while the version tracker
    // caught up with a block (as measured: not a routing effect).
    const changesPerS = (perBlock * blocks) / windowS;
    const pollsPerAnswer = Math.max(1, pollsPerS / changesPerS);
    const bypassShare = bypassed / Math.max(1, answered);
    const predicted = (1 - bypassShare) * predictedHitRate(pollsPerAnswer, apis, routing);
    const costs = lastReadCosts();
    const failedPolls = failures.length;
    const figures: Figure[] = [
      { name: "agents (distinct owners, each its own client)", value: agents },
      { name: "API replicas (routing)", value: `${apis} (${routing})` },
      { name: "blocks written (1 a second)", value: blocks },
      { name: "owners changed per block", value: `${perBlock} (${((perBlock / agents) * 100).toFixed(0)}%)` },
      { name: "polls per second", value: pollsPerS },
      { name: "poll latency p50", value: percentile(latencies, 50), unit: "ms" },
      { name: "poll latency p99", value: percentile(latencies, 99), unit: "ms" },
      { name: "read cache hit rate (activity)", value: `${(hitRate * 100).toFixed(1)}%` },
      { name: "read cache bypassed (version tracker catching up)", value: `${((bypassed / Math.max(1, answered)) * 100).toFixed(1)}%` },
      { name: "model: predicted hit rate", value: `${(predicted * 100).toFixed(1)}%` },
      ...(costs
        ? [
            { name: "model: predicted API CPU per poll", value: predicted * costs.apiHitMs + (1 - predicted) * costs.apiMissMs, unit: "ms" },
            { name: "model: predicted Postgres transactions per poll", value: predicted * costs.pgTxHit + (1 - predicted) * costs.pgTxMiss },
            { name: "model: predicted Postgres CPU per poll (reads only)", value: (1 - predicted) * costs.pgMissMs, unit: "ms" },
          ]
        : []),
      { name: "Postgres transactions per second (each read one)", value: pgTxPerS },
      { name: "Postgres transactions per poll", value: pgTxPerS / pollsPerS },
      {
        name: "Postgres CPU per block (the database's backends: indexer writes and API reads)",
        value: (postgresCpuSince(pgCpu0, pgCpu1) * 1000) / Math.max(1, blocks),
        unit: "ms",
      },
      { name: "API CPU per poll", value: apiCpuMsPerPoll, unit: "ms" },
      { name: "Postgres CPU per poll (the same, over the polls)", value: (postgresCpuSince(pgCpu0, pgCpu1) * 1000) / Math.max(1, windowPolls), unit: "ms" },
      { name: "block to visible p50", value: percentile(visible, 50), unit: "ms" },
      { name: "block to visible p99", value: percentile(visible, 99), unit: "ms", target: "< 1000" },
      {
        name: "  indexing lag (receipt to index commit) p50 / p99",
        value: `${percentile(indexing, 50).toFixed(0)} / ${percentile(indexing, 99).toFixed(0)}`,
        unit: "ms",
      },
      {
        name: "  poll interval (commit to the carrying poll) p50 / p99",
        value: `${percentile(pollWait, 50).toFixed(0)} / ${percentile(pollWait, 99).toFixed(0)}`,
        unit: "ms",
      },
      {
        name: "  answer (that poll, tracker and barrier included) p50 / p99",
        value: `${percentile(answering, 50).toFixed(0)} / ${percentile(answering, 99).toFixed(0)}`,
        unit: "ms",
      },
      { name: "Postgres CPU of the indexer's backends per block", value: indexerPgMs / Math.max(1, blocks), unit: "ms" },
      { name: "Postgres CPU of the indexer's backends per changed owner", value: indexerPgMs / changedOwners, unit: "ms", target: "≤ 1" },
      { name: "Postgres CPU of the API's backends per poll", value: apiPgMs / Math.max(1, windowPolls), unit: "ms" },
      {
        name: "CPU per block: indexer / its Postgres / API / its Postgres / devnet / agents and writer",
        value: [others.indexer * 1000, indexerPgMs, cpu1.reduce((n, c, i) => n + c - cpu0[i]!, 0) * 1000, apiPgMs, others.devnet * 1000, others.load * 1000]
          .map((ms) => (ms / Math.max(1, blocks)).toFixed(0))
          .join(" / "),
        unit: "ms",
      },
      ...(minimalCpuMs !== undefined
        ? [
            // Each changed owner is one Transfer event: the minimal app writes one row for it.
            { name: "minimal Ponder app: Postgres CPU per event", value: minimalCpuMs / changedOwners, unit: "ms" },
            { name: "ours per changed owner / minimal app per event", value: indexerPgMs / Math.max(1e-9, minimalCpuMs) },
            {
              name: "minimal Ponder app: its process CPU per event (ours: the indexer's per changed owner)",
              value: `${(minimalNodeMs / changedOwners).toFixed(3)} (${((others.indexer * 1000) / changedOwners).toFixed(3)})`,
              unit: "ms",
            },
          ]
        : []),
      ...(serverCpu0 && serverCpu1
        ? [
            { name: "APIs read", value: standby === "on" ? "the standby (DATABASE_READ_URL)" : "the primary" },
            {
              name: "primary's Postgres CPU per poll (every process of the server)",
              value: (postgresCpuSince(serverCpu0.primary, serverCpu1.primary) * 1000) / Math.max(1, windowPolls),
              unit: "ms",
            },
            {
              name: "standby's Postgres CPU per poll (every process of the server, replay included)",
              value: (postgresCpuSince(serverCpu0.standby, serverCpu1.standby) * 1000) / Math.max(1, windowPolls),
              unit: "ms",
            },
            ...(reads0 && reads1
              ? [
                  {
                    name: "projection reads on the standby / on the primary",
                    value: `${reads1.reduce((n, r, i) => n + r.standby - reads0[i]!.standby, 0)} / ${reads1.reduce((n, r, i) => n + r.primary - reads0[i]!.primary, 0)}`,
                  },
                ]
              : []),
          ]
        : []),
      { name: "changes sent", value: sent },
      { name: "changes delivered exactly once, in order", value: exactlyOnce, target: `= ${sent}`, pass: exactlyOnce === sent && sent > 0 },
      { name: "failed polls (non-200 or no answer)", value: failedPolls, target: "0", pass: failedPolls === 0 },
      // A block the writer could not make (e.g. more transfers than its one transaction can carry: 800 fit, 1,200 did not) leaves its owners unchanged.
      { name: "writer errors", value: writeErrors, target: "0", pass: writeErrors === 0 },
      { name: "API RSS, largest sample", value: Math.max(...rss, ...replicas.map((r) => rssMiB(r.child.pid!))), unit: "MiB" },
    ];
    if (statements.length)
      writeFileSync(join(repoRoot, "bench", "results", `${name}-statements.json`), `${JSON.stringify({ blocks, changedOwners, statements }, null, 2)}\n`);
    return {
      name,
      figures,
      notes: [
        `measured over the writer's ${windowS.toFixed(0)} s; client: one keep-alive pool of ${SOCKETS} sockets, latency from request to answer, queueing for a socket included`,
        "block to visible: from the writer holding the block's receipt to the poll answer that first carries the change (agents poll once a second, so about 500 ms of it is the poll interval)",
        `model: an owner's answer stands for ${pollsPerAnswer.toFixed(1)} polls (polls/s over changes/s) and ${(bypassShare * 100).toFixed(1)}% of polls bypass the cache; the first after a change and the first with the new cursor at each replica it reaches miss; per-request costs ${costs ? `from the last read-speed run (activity polls: API ${costs.apiHitMs} ms a hit, ${costs.apiMissMs} ms a miss; Postgres ${costs.pgTxHit} / ${costs.pgTxMiss} transactions and ${costs.pgMissMs} ms a miss)` : "unknown (no bench/results/read-speed.json: run read-speed first)"}`,
        ...statements
          .slice(0, 15)
          .map(
            (r) =>
              `statement: ${(r.totalMs / changedOwners).toFixed(3)} ms per changed owner, ${(r.calls / Math.max(1, blocks)).toFixed(1)} calls per block${r.toplevel ? "" : " (nested)"}: ${r.query.slice(0, 160)}`,
          ),
        ...failures.slice(0, 5).map((f) => `failed poll: ${f}`),
        ...findings.map((f) => `not exactly once: ${f}`),
      ],
    };
  } finally {
    stop.abort();
    pool.destroy();
    for (const r of replicas) await r.stop();
    await minimal?.stop();
    await sql.end().catch(() => {});
    await dropDeployment(stack, deployment, redis).catch(() => {});
    redis.disconnect();
    await stack.stop();
    await pair?.stop();
  }
}

/** An API's agent_projection_reads_total, summed by where they ran (primary, or any standby). */
async function projectionReads(metricsUrl: string): Promise<{ primary: number; standby: number }> {
  const text = await (await fetch(metricsUrl)).text();
  let primary = 0;
  let standby = 0;
  for (const m of text.matchAll(/^agent_projection_reads_total\{target="([^"]*)"\} (\d+)/gm)) {
    if (m[1] === "primary") primary += Number(m[2]);
    else standby += Number(m[2]);
  }
  return { primary, standby };
}

if (isMain(import.meta.url)) {
  printMachine();
  const options: ChangingOptions = {
    agents: Number(process.env.CHANGING_AGENTS ?? 2000),
    seconds: Number(process.env.CHANGING_SECONDS ?? 60),
    changeShare: Number(process.env.CHANGING_SHARE ?? 0.1),
    apis: Number(process.env.CHANGING_APIS ?? 1),
    routing: (process.env.CHANGING_ROUTING ?? "owner") as Routing,
    baseline: process.env.CHANGING_BASELINE === "1",
    historyRows: Number(process.env.CHANGING_HISTORY_ROWS ?? 1_000_000),
    waitMs: Number(process.env.CHANGING_WAIT_MS ?? 0),
  };
  const mode = process.env.CHANGING_STANDBY;
  const modes: (ChangingOptions["standby"] | undefined)[] = mode === "compare" ? ["off", "on"] : mode === "on" || mode === "off" ? [mode] : [undefined];
  let pass = true;
  for (const standby of modes) {
    const result = await benchChangingAnswers({ ...options, standby });
    printResult(result);
    saveResult(result);
    pass &&= result.figures.every((f) => f.pass !== false);
  }
  process.exit(pass ? 0 : 1);
}
