// Benchmark 3: live indexing latency. With a devnet (short history, live simulator on) and our indexer
// running, test wallet 3 places limit orders one at a time (a 600 USDG buy of LINK 1.5% under the
// market, so the keeper leaves it open); for each, the time from its receipt to its row in the activity
// table, polling Postgres every 10 ms. Alone: `npx tsx bench/live-latency.ts` (LIVE_TXS, default 50).
import postgres from "postgres";
import { createPublicClient, createWalletClient, http, parseUnits, type Address, type Hex } from "viem";
import { limitOrderHookAbi, poolAbi, testTokenAbi } from "../abis/index.js";
import { accountAddress, devnetChain } from "../devnet/chain.js";
import type { Deployments } from "../adapters/chain/deployments.js";
import { readJson } from "../test/helpers/stack.js";
import { isMain, log, percentile, printMachine, printResult, saveResult, startDevnet, startIndexer, waitReady, type BenchResult } from "./lib.js";

export const LATENCY_P95_TARGET_MS = 1000;
const WALLET = 3;
const ORDER_USDG = parseUnits("600", 6);

export async function benchLiveLatency({ n = 50, days = 1, simIntervalMs = 2000 } = {}): Promise<BenchResult> {
  log(`live-latency: devnet (${days} day of history, live simulator every ${simIntervalMs} ms) and our indexer`);
  const devnet = await startDevnet({ days, simIntervalMs });
  const indexer = await startIndexer("ours", devnet).catch(async (err) => {
    await devnet.stop();
    throw err;
  });
  const sql = postgres(indexer.db.url, { max: 1, onnotice: () => {} });
  try {
    const readyS = await waitReady(indexer);
    log(`indexer ready in ${readyS.toFixed(1)} s; sending ${n} transactions from test wallet ${WALLET}`);
    const d = readJson<Deployments>(devnet.deploymentsFile);
    const chain = { ...devnetChain, rpcUrls: { default: { http: [devnet.rpcUrl] } } };
    const client = createPublicClient({ chain, transport: http(devnet.rpcUrl), pollingInterval: 10 });
    const from = accountAddress(WALLET);
    const wallet = createWalletClient({ chain, transport: http(devnet.rpcUrl), account: from });
    const hook = d.contracts.limitOrderHook!;
    const link = d.tokens.find((t) => t.symbol === "LINK")!;
    const send = async (address: Address, abi: typeof testTokenAbi | typeof limitOrderHookAbi, functionName: string, args: readonly unknown[]) => {
      const hash = await wallet.writeContract({ address, abi, functionName, args, gas: 5_000_000n } as Parameters<typeof wallet.writeContract>[0]);
      const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 10 });
      if (receipt.status !== "success") throw new Error(`${functionName} reverted (${hash})`);
      return hash;
    };
    await send(d.contracts.usdg!, testTokenAbi, "approve", [hook, ORDER_USDG * BigInt(n + 1)]);

    const placeOrder = async () => {
      const price = await client.readContract({ address: link.pool!, abi: poolAbi, functionName: "priceX18" });
      const hash = await send(hook, limitOrderHookAbi, "create", [link.address, false, ORDER_USDG, (price * 985n) / 1000n]);
      return untilIndexed(sql, indexer.schema, hash, performance.now());
    };
    // Ready means the backfill is done; the blocks the simulator mined meanwhile are indexed live after.
    // One order first, not counted, so that the figures are those of an indexer at the chain's head.
    const warmUp = await placeOrder();
    const latencies: number[] = [];
    for (let i = 0; i < n; i++) latencies.push(await placeOrder());
    latencies.sort((a, b) => a - b);
    const p50 = percentile(latencies, 50);
    const p95 = percentile(latencies, 95);
    return {
      name: "live-latency",
      figures: [
        { name: "transactions (limit order create, wallet 3)", value: n },
        { name: "receipt to activity row: p50", value: p50, unit: "ms" },
        { name: "receipt to activity row: p95", value: p95, unit: "ms", target: `< ${LATENCY_P95_TARGET_MS} ms`, pass: p95 < LATENCY_P95_TARGET_MS },
        { name: "receipt to activity row: max", value: latencies[latencies.length - 1]!, unit: "ms" },
        { name: "receipt to activity row: min", value: latencies[0]!, unit: "ms" },
      ],
      notes: [
        `indexer polling interval 100 ms (ponder.config.ts); Postgres polled every 10 ms; devnet simulator every ${simIntervalMs} ms`,
        `a first order right after /ready (not counted): ${Math.round(warmUp)} ms`,
      ],
    };
  } finally {
    await sql.end().catch(() => {});
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
  const result = await benchLiveLatency({ n: Number(process.env.LIVE_TXS ?? 50) });
  printResult(result);
  saveResult(result);
  process.exit(0);
}
