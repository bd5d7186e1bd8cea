// Indexer faults, many of them, on a still devnet of the test's own: SIGKILLs of the indexer (its whole
// process group) at random points of the backfill and of live indexing, each followed by a restart with
// the same environment, and devnet reorgs at depths 1 to 10 during live indexing (evm_snapshot, a
// branch of limit orders indexed, evm_revert, a different and taller branch). After every reorg nothing
// of the removed branch is left; after the series, every projection table hashes equal to a clean index
// of the canonical chain (a fresh indexer in a database of its own, so no cached chain data is shared).
//
// Counts: FAULT_REORGS and FAULT_KILLS (half of the kills during the backfill). The defaults (10 reorgs,
// each depth once; 6 kills) are the CI scale; the counts are FAULT_REORGS=20 FAULT_KILLS=10
// (about 9.5 minutes on a loaded 2-core machine: see docs/faults.md).
// A SIGKILLed Ponder leaves its schema locked until its heartbeat is 25 s old; the test backdates the
// dead app's heartbeat by 30 s before each restart (what waiting would do), so a restart costs seconds.
import { createPublicClient, createWalletClient, http, type Address, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonRpc as rpc } from "../helpers/json-rpc.js";
import postgres from "postgres";
import { limitOrderHookAbi, marketRegistryAbi, testTokenAbi } from "../../abis/index.js";
import { accountAddress, devnetChain } from "../../devnet/chain.js";
import type { Deployments } from "../../adapters/chain/deployments.js";
import { chainHead, createDatabase, indexedBlock, projectionsSql, startIndexer, tableHashes, waitIndexedAt, type Indexer } from "../helpers/indexer.js";
import { ponderReady, readJson, startStack, waitFor, type StartedStack } from "../helpers/stack.js";

const REORGS = Number(process.env.FAULT_REORGS ?? 10);
const KILLS = Number(process.env.FAULT_KILLS ?? 6);
const BACKFILL_KILLS = Math.ceil(KILLS / 2);
const USDG = 10n ** 6n;

let stack: StartedStack;
const indexers: Indexer[] = [];
let cleanDb: Awaited<ReturnType<typeof createDatabase>> | undefined;

beforeAll(async () => {
  stack = await startStack({ historyDays: Number(process.env.FAULT_HISTORY_DAYS ?? 2), simIntervalMs: 3_600_000, indexer: false });
}, 300_000);

afterAll(async () => {
  await Promise.all(indexers.map((i) => i.stop()));
  await cleanDb?.drop().catch(() => {});
  await stack?.stop();
}, 60_000);

/** A wallet placing limit orders (one transaction, one block each: the devnet automines). */
function orderer(rpcUrl: string, d: Deployments, index: number) {
  const account = accountAddress(index);
  const publicClient = createPublicClient({ chain: devnetChain, transport: http(rpcUrl) });
  const wallet = createWalletClient({ chain: devnetChain, transport: http(rpcUrl), account });
  const hook = d.contracts.limitOrderHook! as Address;
  const usdg = d.contracts.usdg! as Address;
  const token = d.tokens.find((t) => t.symbol === "LINK")!.address;
  const send = async (address: Address, abi: readonly unknown[], functionName: string, args: readonly unknown[]) => {
    const hash = await wallet.writeContract({ address, abi: abi as never, functionName, args: args as never, gas: 5_000_000n, chain: devnetChain } as never);
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    if (receipt.status !== "success") throw new Error(`${functionName} reverted`);
    return hash;
  };
  return {
    approve: () => send(usdg, testTokenAbi, "approve", [hook, 10n ** 30n]),
    /** One buy order at `percent` of the price: a limit_order row and an activity row. */
    async order(percent: bigint): Promise<Hex> {
      const price = (await publicClient.readContract({
        address: d.contracts.markets! as Address,
        abi: marketRegistryAbi,
        functionName: "priceX18",
        args: [token],
      })) as bigint;
      return send(hook, limitOrderHookAbi, "create", [token, false, 20n * USDG, (price * percent) / 100n]);
    },
  };
}

/** Random integers and picks, from a seed printed with the results so a failing run can be replayed. */
function seeded(seed: number) {
  let s = seed >>> 0;
  const next = () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
  return { next, int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)) };
}

describe("the indexer through many faults", () => {
  it(`survives ${KILLS} SIGKILLs and ${REORGS} reorgs (depths 1-10) with the tables of a clean index`, async () => {
    const seed = Number(process.env.FAULT_SEED ?? Date.now() % 1_000_000);
    const rand = seeded(seed);
    const d = readJson<Deployments>(stack.deploymentsFile);
    const log: string[] = [];
    const events: string[] = [`seed ${seed}`];
    const started = Date.now();

    // The app's lock: a killed Ponder's heartbeat stops; backdating it 30 s is what waiting 25 s would do.
    const admin = postgres(stack.databaseUrl, { max: 1, onnotice: () => {} });
    const unlock = (schema: string) =>
      admin
        .unsafe(
          `update "${schema}"."_ponder_meta" set value = jsonb_set(value, '{heartbeat_at}', to_jsonb((extract(epoch from now()) * 1000)::bigint - 30000)) where key = 'app'`,
        )
        .catch(() => {}); // no table yet: killed before its first migration

    let current = await startIndexer(stack, { schema: "faulty", viewsSchema: "faulty_views", extraEnv: { INDEXER_RPC_LANES: "1" } }, log);
    indexers.push(current);
    const restart = async (why: string) => {
      const at = await indexedBlock(current.ponderUrl).catch(() => undefined);
      await current.kill();
      events.push(`kill ${why} at block ${at ?? "-"}`);
      await unlock(current.schema);
      current = await startIndexer(stack, { env: current.env }, log);
      indexers.push(current);
    };
    let kills = 0;

    try {
      // ---- SIGKILLs during the backfill, at random fractions of the history, in increasing order.
      const head0 = await chainHead(stack.rpcUrl);
      const { startBlock } = d as unknown as { startBlock: number };
      const targets = Array.from({ length: BACKFILL_KILLS }, () => 0.05 + rand.next() * 0.9).sort((a, b) => a - b);
      for (const target of targets) {
        let done = false;
        await waitFor(
          `backfill at ${(target * 100).toFixed(0)}%`,
          async () => {
            if (await ponderReady(current.ponderUrl).catch(() => false)) return (done = true);
            const block = await indexedBlock(current.ponderUrl).catch(() => undefined);
            return block !== undefined && (block - startBlock) / (head0 - startBlock) >= target;
          },
          120_000,
          log,
        );
        // Past the backfill already: this kill lands in live indexing instead (said so in the events).
        await restart(done ? "live (backfill over early)" : `backfill ~${(target * 100).toFixed(0)}%`);
        kills++;
      }
      await waitIndexedAt(current.ponderUrl, head0, 180_000, log);
      expect(log.join("\n")).toContain("Detected crash recovery");
      events.push(`backfill with kills done at ${((Date.now() - started) / 1000).toFixed(0)} s`);

      // ---- Reorgs during live indexing; the remaining kills land at random stages of random reorgs.
      const a = orderer(stack.rpcUrl, d, 2);
      const b = orderer(stack.rpcUrl, d, 3);
      await a.approve();
      await b.approve();
      const killAt = new Map<number, number>(); // reorg index -> stage 0..2
      while (killAt.size < Math.min(KILLS - kills, REORGS)) killAt.set(rand.int(0, REORGS - 1), rand.int(0, 2));
      const sql = projectionsSql(stack.databaseUrl);
      try {
        for (let r = 0; r < REORGS; r++) {
          const depth = (r % 10) + 1; // every depth 1-10 (twice with 20 reorgs)
          const base = await chainHead(stack.rpcUrl);
          await waitIndexedAt(current.ponderUrl, base, 120_000, log);
          const snapshot = await rpc<Hex>(stack.rpcUrl, "evm_snapshot");
          const removed: Hex[] = [];
          for (let i = 0; i < depth; i++) removed.push(await a.order(95n));
          const stage = killAt.get(r);
          if (stage === 0) {
            await restart(`live, reorg ${r} branch sent`);
            kills++;
          }
          // The removed branch is indexed live before it goes (unless the indexer is down right now).
          if (stage !== 0) await waitIndexedAt(current.ponderUrl, base + depth, 60_000, log);
          if (stage === 1) {
            await restart(`live, reorg ${r} branch indexed`);
            kills++;
          }
          await rpc(stack.rpcUrl, "evm_revert", [snapshot]);
          expect(await chainHead(stack.rpcUrl)).toBe(base);
          for (let i = 0; i <= depth; i++) await b.order(90n);
          if (stage === 2) {
            await restart(`live, reorg ${r} new branch sent`);
            kills++;
          }
          await waitIndexedAt(current.ponderUrl, base + depth + 1, 120_000, log);
          // Nothing of the removed branch is left, after every reorg.
          const hashes = sql(removed.map((h) => h.toLowerCase()));
          const [row] = await sql`select (select count(*) from faulty.activity where tx_hash in ${hashes})
            + (select count(*) from faulty.executed_call where tx_hash in ${hashes}) as n`;
          expect(Number(row!.n), `rows of reorg ${r}'s removed branch`).toBe(0);
          events.push(`reorg ${r} depth ${depth}`);
        }
      } finally {
        await sql.end();
      }
      expect(kills).toBe(KILLS);
      const reorgedLines = log.filter((l) => l.includes("Reorged block")).length;
      if (REORGS > 0) expect(reorgedLines).toBeGreaterThan(0);

      // ---- A clean index of the canonical chain, at the same block, in a database of its own.
      const head = await chainHead(stack.rpcUrl);
      await waitIndexedAt(current.ponderUrl, head, 120_000, log);
      events.push(`reorgs done at ${((Date.now() - started) / 1000).toFixed(0)} s`);
      cleanDb = await createDatabase();
      const clean = await startIndexer(stack, { databaseUrl: cleanDb.url, schema: "clean", viewsSchema: "clean_views" });
      indexers.push(clean);
      await waitIndexedAt(clean.ponderUrl, head, 240_000, clean.log);
      const [faulted, fresh] = await Promise.all([tableHashes(stack.databaseUrl, current.schema), tableHashes(cleanDb.url, clean.schema)]);
      expect(faulted).toEqual(fresh);
      expect(fresh.limit_order!.rows).toBeGreaterThan(0);
      console.log(
        `[indexer-faults] ${kills} kills, ${REORGS} reorgs (${reorgedLines} "Reorged block" lines), ${fresh.activity!.rows} activity rows, ${((Date.now() - started) / 1000).toFixed(0)} s\n  ${events.join("\n  ")}`,
      );
    } finally {
      await admin.end();
    }
  }, 900_000);
});
