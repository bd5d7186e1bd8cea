// Long-poll activity with 1,000 waiting agents: a devnet (1 day of history, live simulator on) and our
// indexer; the agent API in this process on a real loopback port, built as `npm run api` builds it
// (its own pools, Redis rate limits, each agent its own client address); 1,000 agents each keep one
// long poll open (`waitMs=30000`, polling on with each answer's cursor). Wallet 16 is one of them: it
// places limit orders one at a time (a 600 USDG buy of LINK 1.5% under the market, which the keeper
// leaves open), and for each the time from its receipt to its own agent's answer carrying it is
// measured, and every other agent's answer counted (none should come). While they wait, Postgres
// connections are read from pg_stat_activity. Alone: `npx tsx bench/long-poll.ts` (LONG_POLL_WAITERS,
// default 1000; LONG_POLL_TXS, default 20).
import { serve } from "@hono/node-server";
import { setMaxListeners } from "node:events";
import postgres from "postgres";
import { createPublicClient, createWalletClient, http, parseUnits, type Address, type Hex } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { limitOrderHookAbi, poolAbi, testTokenAbi } from "../abis/index.js";
import { createApp } from "../api/app.js";
import { createRedis, waitForRedis } from "../adapters/redis.js";
import { devnetChain, TEST_MNEMONIC } from "../devnet/chain.js";
import { ActivityWaker } from "../usecases/activity/waker.js";
import type { Deployments } from "../adapters/chain/deployments.js";
import { createLogger } from "../adapters/logger.js";
import { freePort, readJson } from "../test/helpers/stack.js";
import {
  deleteRedisKeys,
  isMain,
  log,
  percentile,
  printMachine,
  printResult,
  saveResult,
  startDevnet,
  startIndexer,
  waitReady,
  type BenchResult,
  benchApiDbs,
} from "./lib.js";

export const WAKE_P95_TARGET_MS = 1000;
const SENDER = 16;
const ADMIN = 10;
const ORDER_USDG = parseUnits("600", 6);
const WAIT_MS = 30_000;
const REDIS_URL = process.env.REDIS_URL || "redis://127.0.0.1:6379";

type Change = { txHash: string; kind: string };
type Activity = { cursor: string; changes: Change[] };

export async function benchLongPoll({ waiters = 1000, n = 20, days = 1, simIntervalMs = 2000 } = {}): Promise<BenchResult> {
  log(`long-poll: devnet (${days} day of history, simulator every ${simIntervalMs} ms), our indexer, the API in process, ${waiters} waiting agents`);
  const devnet = await startDevnet({ days, simIntervalMs });
  const indexer = await startIndexer("ours", devnet).catch(async (err) => {
    await devnet.stop();
    throw err;
  });
  const probe = postgres(indexer.db.url, { max: 1, onnotice: () => {}, connection: { application_name: "bench-probe" } });
  const redisPrefix = `agent_bench_lp_${Date.now().toString(36)}`;
  const cleanup: (() => Promise<unknown>)[] = [];
  const stop = new AbortController();
  setMaxListeners(0, stop.signal); // one listener per agent's request
  try {
    const readyS = await waitReady(indexer);
    log(`indexer ready in ${readyS.toFixed(1)} s`);

    // The API as api/main.ts builds it: its schema migrated, the projections pool, Redis rate limits.
    const logger = createLogger({ level: "warn", base: { service: "api" } });
    const { db, reads } = await benchApiDbs(indexer.db.url);
    const redis = createRedis({ url: REDIS_URL, logger });
    await waitForRedis(redis, 5000);
    const waker = new ActivityWaker({ reads, logger });
    const deployments = readJson<Deployments>(devnet.deploymentsFile);
    const app = createApp({
      db,
      reads,
      deployments,
      redis,
      logger,
      now: () => new Date(),
      indexerReady: () => true,
      activityWaker: waker,
      // Each agent is its own client (X-Forwarded-For), under the default per-client limit.
      rateLimit: { keyPrefix: `${redisPrefix}:rl`, trustProxyHops: 1 },
    });
    const port = await freePort();
    const server = serve({ fetch: app.fetch, port, hostname: "127.0.0.1" });
    const base = `http://127.0.0.1:${port}`;
    cleanup.push(async () => {
      // The agents hung up: their requests leave the waker (their signals abort) before the pools close.
      const drained = Date.now() + 5_000;
      while (waker.stats().waiters > 0 && Date.now() < drained) await new Promise((r) => setTimeout(r, 50));
      waker.stop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.allSettled([db.destroy(), reads.destroy(), redis.quit()]);
      await deleteRedisKeys(REDIS_URL, redisPrefix);
    });

    // Wallet 16 (not a seeded wallet) is minted USDG by the admin, then approves the hook once.
    const chain = { ...devnetChain, rpcUrls: { default: { http: [devnet.rpcUrl] } } };
    const client = createPublicClient({ chain, transport: http(devnet.rpcUrl), pollingInterval: 10 });
    const walletOf = (index: number) =>
      createWalletClient({ chain, transport: http(devnet.rpcUrl), account: mnemonicToAccount(TEST_MNEMONIC, { addressIndex: index }) });
    const sender = walletOf(SENDER);
    const senderAddress = sender.account.address;
    const send = async (
      wallet: ReturnType<typeof walletOf>,
      address: Address,
      abi: typeof testTokenAbi | typeof limitOrderHookAbi,
      functionName: string,
      args: readonly unknown[],
    ) => {
      const hash = await wallet.writeContract({ address, abi, functionName, args, gas: 5_000_000n } as Parameters<typeof wallet.writeContract>[0]);
      const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 10 });
      if (receipt.status !== "success") throw new Error(`${functionName} reverted (${hash})`);
      return hash;
    };
    const hook = deployments.contracts.limitOrderHook!;
    const usdg = deployments.contracts.usdg!;
    const link = deployments.tokens.find((t) => t.symbol === "LINK")!;
    await send(walletOf(ADMIN), usdg, testTokenAbi, "mint", [senderAddress, ORDER_USDG * BigInt(n + 2)]);
    await send(sender, usdg, testTokenAbi, "approve", [hook, ORDER_USDG * BigInt(n + 2)]);

    // The agents: wallet 16 and waiters - 1 wallets with no activity, each with its own address.
    const owners: string[] = [senderAddress, ...Array.from({ length: waiters - 1 }, (_, i) => `0x${"cd".repeat(10)}${(i + 1).toString(16).padStart(20, "0")}`)];
    const settled = async (what: string, check: () => boolean, timeoutMs = 60_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!check()) {
        if (failures.length > 0) throw new Error(`an agent failed: ${failures[0]!.message}`);
        if (Date.now() > deadline) throw new Error(`${what} after ${timeoutMs / 1000} s`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const wakes: { owner: string; at: number; changes: Change[] }[] = [];
    const waiting = new Set<string>();
    const agentLoop = async (owner: string, index: number) => {
      const headers = { "X-Forwarded-For": `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}` };
      const get = async (query: string): Promise<Activity> => {
        for (let attempt = 1; ; attempt++) {
          try {
            const response = await fetch(`${base}/v1/agent/accounts/${owner}/activity${query}`, { headers, signal: stop.signal });
            if (response.status !== 200) throw new Error(`activity ${response.status}: ${await response.text()}`);
            return ((await response.json()) as { data: Activity }).data;
          } catch (error) {
            // A connection refused or reset under load is retried, as an agent would.
            if ((error as Error).name === "AbortError" || attempt >= 5 || !(error instanceof TypeError)) throw error;
            retries++;
            await new Promise((r) => setTimeout(r, 100 * attempt));
          }
        }
      };
      let { cursor } = await get("");
      started++;
      while (!stop.signal.aborted) {
        waiting.add(owner);
        const answer = await get(`?cursor=${encodeURIComponent(cursor)}&waitMs=${WAIT_MS}`).finally(() => waiting.delete(owner));
        if (answer.changes.length > 0) wakes.push({ owner, at: performance.now(), changes: answer.changes });
        cursor = answer.cursor;
      }
    };
    // Agents arrive in batches (a thousand connections at once overflow the listen backlog).
    let started = 0;
    let retries = 0;
    const failures: Error[] = [];
    const loops: Promise<void>[] = [];
    cleanup.unshift(async () => {
      stop.abort();
      await Promise.all(loops);
    });
    for (let i = 0; i < owners.length; i += 50) {
      const batch = owners.slice(i, i + 50).map((o, j) =>
        agentLoop(o, i + j).catch((error: Error) => {
          if (error.name !== "AbortError") failures.push(error);
        }),
      );
      loops.push(...batch);
      const target = Math.min(owners.length, i + 50);
      await settled(`agents ${i}-${target} did not start`, () => started >= target || failures.length > 0);
    }
    await settled(`not all ${waiters} agents waiting`, () => waker.stats().waiters === waiters && waiting.size === waiters);
    log(`${waiters} agents waiting`);

    // Postgres connections while they wait: every session on the database, by process and state.
    const samples: { total: number; active: number; api: number; apiActive: number }[] = [];
    const connectionRows: Record<string, string | number>[] = [];
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 400));
      const rows = await probe<{ app: string; state: string | null; count: number }[]>`
        select application_name as app, state, count(*)::int as count from pg_stat_activity
        where datname = ${indexer.db.name} and pid <> pg_backend_pid() group by 1, 2 order by 1, 2`;
      const isApi = (r: { app: string }) => r.app.startsWith("agent-api");
      const sum = (xs: { count: number }[]) => xs.reduce((a, r) => a + r.count, 0);
      samples.push({
        total: sum(rows),
        active: sum(rows.filter((r) => r.state === "active")),
        api: sum(rows.filter(isApi)),
        apiActive: sum(rows.filter((r) => isApi(r) && r.state === "active")),
      });
      if (i === 4) for (const r of rows) connectionRows.push({ application: r.app || "(none)", state: r.state ?? "", connections: r.count });
    }
    const ticksBefore = waker.stats().ticks;
    const tickStart = performance.now();

    // Orders one at a time: each must wake wallet 16's agent, and nobody else.
    const placeOrder = async () => {
      await settled("wallet 16's agent is not waiting again", () => waiting.has(senderAddress) && waker.stats().waiters === waiters);
      const from = wakes.length;
      const price = await client.readContract({ address: link.pool!, abi: poolAbi, functionName: "priceX18" });
      const hash: Hex = await send(sender, hook, limitOrderHookAbi, "create", [link.address, false, ORDER_USDG, (price * 985n) / 1000n]);
      const mined = performance.now();
      // Beside it, when the row reaches the activity table (the indexer's part of the latency).
      const indexedMs = untilIndexed(probe, indexer.schema, hash, mined);
      await settled(
        `order ${hash} never woke its agent`,
        () => wakes.slice(from).some((w) => w.owner === senderAddress && w.changes.some((c) => c.txHash === hash)),
        30_000,
      );
      const wake = wakes.slice(from).find((w) => w.owner === senderAddress && w.changes.some((c) => c.txHash === hash))!;
      return { wakeMs: wake.at - mined, indexedMs: await indexedMs };
    };
    const warmUp = (await placeOrder()).wakeMs;
    const latencies: number[] = [];
    const indexing: number[] = [];
    const afterIndexed: number[] = [];
    for (let i = 0; i < n; i++) {
      const { wakeMs, indexedMs } = await placeOrder();
      latencies.push(wakeMs);
      indexing.push(indexedMs);
      afterIndexed.push(wakeMs - indexedMs);
    }
    indexing.sort((a, b) => a - b);
    afterIndexed.sort((a, b) => a - b);
    const wrong = wakes.filter((w) => w.owner !== senderAddress).length;
    const ticksPerS = ((waker.stats().ticks - ticksBefore) * 1000) / (performance.now() - tickStart);
    latencies.sort((a, b) => a - b);
    const p95 = percentile(latencies, 95);
    const max = (xs: number[]) => Math.max(...xs);
    return {
      name: "long-poll",
      figures: [
        { name: "agents waiting (one long poll each, waitMs 30000)", value: waiters },
        { name: "transactions (limit order create, wallet 16)", value: n },
        { name: "receipt to its agent's answer: p50", value: percentile(latencies, 50), unit: "ms" },
        { name: "receipt to its agent's answer: p95", value: p95, unit: "ms", target: `< ${WAKE_P95_TARGET_MS} ms`, pass: p95 < WAKE_P95_TARGET_MS },
        { name: "receipt to its agent's answer: max", value: latencies[latencies.length - 1]!, unit: "ms" },
        { name: "of which receipt to activity row (indexer): p50", value: percentile(indexing, 50), unit: "ms" },
        { name: "of which receipt to activity row (indexer): p95", value: percentile(indexing, 95), unit: "ms" },
        { name: "of which activity row to answer (waker, feed read): p50", value: percentile(afterIndexed, 50), unit: "ms" },
        { name: "of which activity row to answer (waker, feed read): p95", value: percentile(afterIndexed, 95), unit: "ms" },
        { name: "other agents woken", value: wrong, target: "0", pass: wrong === 0 },
        { name: "Postgres connections of the API while they wait (max of 5 samples)", value: max(samples.map((s) => s.api)), unit: "connections" },
        { name: "of which active (running a query)", value: max(samples.map((s) => s.apiActive)), unit: "connections" },
        { name: "all sessions on the database (indexer included)", value: max(samples.map((s) => s.total)), unit: "connections" },
        { name: "waker queries while they wait", value: ticksPerS, unit: "per s" },
        { name: "requests retried after a refused or reset connection", value: retries },
      ],
      notes: [
        `pg_stat_activity at the last sample: ${connectionRows.map((r) => `${r.application} ${r.state} ${r.connections}`).join(", ")}`,
        "the API's pools hold at most 10 connections each (agent-api, agent-api-reads), however many requests wait",
        `indexer polling interval 100 ms, waker tick 100 ms; devnet simulator every ${simIntervalMs} ms; a first order (not counted): ${Math.round(warmUp)} ms`,
      ],
    };
  } finally {
    for (const step of cleanup) await step().catch(() => {});
    await probe.end().catch(() => {});
    await indexer.stop();
    await devnet.stop();
  }
}

/** Milliseconds from `t0` until the activity table has a row of transaction `hash` (polled every 10 ms). */
async function untilIndexed(sql: postgres.Sql, schema: string, hash: Hex, t0: number): Promise<number> {
  const deadline = t0 + 30_000;
  for (;;) {
    const rows = await sql`select 1 from ${sql(schema)}.activity where tx_hash = ${hash} limit 1`;
    if (rows.length) return performance.now() - t0;
    if (performance.now() > deadline) throw new Error(`transaction ${hash} not in the activity table after 30 s`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

if (isMain(import.meta.url)) {
  printMachine();
  const result = await benchLongPoll({ waiters: Number(process.env.LONG_POLL_WAITERS ?? 1000), n: Number(process.env.LONG_POLL_TXS ?? 20) });
  printResult(result);
  saveResult(result);
  process.exit(0);
}
