// Benchmark: one atomic batch of many calls through the indexer (issue 51). With a devnet (1 day of history,
// the simulator still) and our indexer at the chain's head, test wallet 5 delegates to the devnet's ERC-7821
// BatchExecutor (EIP-7702) and sends one `execute` of N zero-value share transfers to itself on a merged vault
// (N events, 2N activity rows, no call recorded: a transfer confirms no service call). For each N: the time from
// the batch's receipt to its last activity row, the indexer's CPU seconds for it, and the receipt-to-row time of
// an ordinary change (wallet 4's one share transfer) sent right after, which waits behind the batch.
// Alone: `npx tsx bench/batch-indexing.ts` (BATCH_SIZES, default 500,1000,2000).
import postgres from "postgres";
import { createPublicClient, createWalletClient, encodeFunctionData, http, type Hex } from "viem";
import { mergedVaultAbi } from "../abis/index.js";
import { mnemonicToAccount } from "viem/accounts";
import { accountAddress, devnetChain, TEST_MNEMONIC } from "../devnet/chain.js";
import type { Deployments } from "../adapters/chain/deployments.js";
import { readJson } from "../test/helpers/stack.js";
import { execFileSync } from "node:child_process";
import { cpuSeconds, isMain, log, printMachine, printResult, saveResult, startDevnet, startIndexer, waitReady, type BenchResult } from "./lib.js";
import { encodeBatchExecute } from "../test/helpers/erc7821.js";

const SENDER = 5;
const PROBE = 4;

/** CPU seconds of a process and all its descendants (the indexer script, Ponder, its workers), to 10 ms. */
function descendantsCpuSeconds(root: number | undefined): number {
  if (root === undefined) return 0;
  const children = new Map<number, number[]>();
  for (const line of execFileSync("ps", ["-e", "-o", "pid=,ppid="], { encoding: "utf8" }).split("\n")) {
    const [pid, ppid] = line.trim().split(/\s+/).map(Number);
    if (pid && ppid) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  }
  let total = 0;
  for (const queue = [root]; queue.length; ) {
    const pid = queue.pop()!;
    total += cpuSeconds(pid) ?? 0;
    queue.push(...(children.get(pid) ?? []));
  }
  return total;
}

export async function benchBatchIndexing({ sizes = [500, 1000, 2000] } = {}): Promise<BenchResult> {
  log("batch-indexing: devnet (1 day of history, simulator still) and our indexer");
  const devnet = await startDevnet({ days: 1 });
  const indexer = await startIndexer("ours", devnet).catch(async (err) => {
    await devnet.stop();
    throw err;
  });
  const sql = postgres(indexer.db.url, { max: 1, onnotice: () => {} });
  try {
    await waitReady(indexer);
    const d = readJson<Deployments>(devnet.deploymentsFile);
    const chain = { ...devnetChain, rpcUrls: { default: { http: [devnet.rpcUrl] } } };
    const client = createPublicClient({ chain, transport: http(devnet.rpcUrl, { timeout: 120_000 }), pollingInterval: 10 });
    const sender = mnemonicToAccount(TEST_MNEMONIC, { addressIndex: SENDER });
    const wallet = createWalletClient({ chain, transport: http(devnet.rpcUrl, { timeout: 120_000 }), account: sender });
    const probe = createWalletClient({ chain, transport: http(devnet.rpcUrl, { timeout: 120_000 }), account: accountAddress(PROBE) });
    const vault = d.vaults.find((v) => v.family === "merged")!.address;
    const authorization = await wallet.signAuthorization({ account: sender, contractAddress: d.contracts.batchExecutor!, executor: "self" });
    const delegated = await wallet.sendTransaction({ to: sender.address, data: "0x", authorizationList: [authorization] });
    if ((await client.waitForTransactionReceipt({ hash: delegated })).status !== "success") throw new Error("the 7702 delegation reverted");
    const transfer = (to: Hex) => encodeFunctionData({ abi: mergedVaultAbi, functionName: "transfer", args: [to, 0n] });
    const rowsOf = async (hash: Hex) => Number((await sql`select count(*)::int as n from ponder.activity where tx_hash = ${hash}`)[0]!.n);
    const untilRows = async (hash: Hex, n: number, t0: number) => {
      for (;;) {
        if ((await rowsOf(hash)) >= n) return performance.now() - t0;
        if (performance.now() - t0 > 600_000) throw new Error(`${hash}: fewer than ${n} activity rows after 600 s`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const rows: { calls: number; gas: bigint; batchMs: number; probeMs: number; cpuS: number }[] = [];
    for (const n of sizes) {
      const data = encodeBatchExecute(Array.from({ length: n }, () => ({ to: vault, data: transfer(sender.address) })));
      const gas = await client.estimateGas({ account: sender, to: sender.address, data });
      const cpuBefore = descendantsCpuSeconds(indexer.process.pid);
      const hash = await wallet.sendTransaction({ to: sender.address, data, gas: (gas * 12n) / 10n });
      const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 10 });
      if (receipt.status !== "success") throw new Error(`the ${n}-call batch reverted`);
      const t0 = performance.now();
      // An ordinary owner's change right behind it: one share transfer of wallet 4.
      const probeHash = await probe.sendTransaction({ to: vault, data: transfer(accountAddress(PROBE)) });
      await client.waitForTransactionReceipt({ hash: probeHash, pollingInterval: 10 });
      const probeT0 = performance.now();
      const batchMs = await untilRows(hash, 2 * n, t0);
      const probeMs = await untilRows(probeHash, 1, probeT0);
      const cpuS = descendantsCpuSeconds(indexer.process.pid) - cpuBefore;
      rows.push({ calls: n, gas: receipt.gasUsed, batchMs, probeMs, cpuS });
      log(`${n} calls (${receipt.gasUsed} gas): indexed ${Math.round(batchMs)} ms after its receipt; the next change ${Math.round(probeMs)} ms`);
    }
    return {
      name: "batch-indexing",
      figures: rows.flatMap((r) => [
        { name: `${r.calls}-call batch (${r.gas} gas): receipt to its last activity row`, value: Math.round(r.batchMs), unit: "ms" },
        { name: `${r.calls}-call batch: an ordinary change sent right after, receipt to row`, value: Math.round(r.probeMs), unit: "ms" },
        { name: `${r.calls}-call batch: indexer CPU (all its processes) from send to indexed`, value: Number(r.cpuS.toFixed(2)), unit: "s" },
      ]),
      notes: ["one ERC-7821 execute of N zero-value merged-vault share transfers to the sender itself: N events, 2N activity rows, no executed call"],
    };
  } finally {
    await sql.end().catch(() => {});
    await indexer.stop();
    await devnet.stop();
  }
}

if (isMain(import.meta.url)) {
  printMachine();
  const sizes = (process.env.BATCH_SIZES ?? "500,1000,2000").split(",").map(Number);
  const result = await benchBatchIndexing({ sizes });
  printResult(result);
  saveResult(result);
  process.exit(0);
}
