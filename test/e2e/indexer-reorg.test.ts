// A reorg: the devnet's last blocks are replaced (evm_snapshot, user transactions, evm_revert, different
// user transactions on a taller branch). The indexer then holds exactly what a fresh index of the new
// chain holds, table by table, with nothing left of the removed blocks, and the new branch's orders,
// grids and ladders (cancelled, claimed, closed, collected) equal the contracts' answers.
import { createPublicClient, createWalletClient, encodeFunctionData, http, type Abi, type Address, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonRpc as rpc } from "../helpers/json-rpc.js";
import {
  devAggregatorAbi,
  gridStrategyAbi,
  ladderStrategyAbi,
  limitOrderHookAbi,
  marketRegistryAbi,
  mergedVaultAbi,
  swapRouterAbi,
  testTokenAbi,
  upDepositQueueAbi,
} from "../../abis/index.js";
import { accountAddress, devnetChain } from "../../devnet/chain.js";
import { lessSlippage } from "../../domain/basket-pool.js";
import type { Deployments } from "../../adapters/chain/deployments.js";
import { chainHead, differencesFromChain, projectionsSql, startIndexer, tableHashes, waitCaughtUp, waitIndexedAt, type Indexer } from "../helpers/indexer.js";
import { readJson, startStack, type StartedStack } from "../helpers/stack.js";

const USDG = 10n ** 6n;

let stack: StartedStack;
let fresh: Indexer | undefined;

beforeAll(async () => {
  // A still devnet: no block arrives unless this test sends it.
  stack = await startStack({ historyDays: 1, simIntervalMs: 3_600_000 });
}, 240_000);

afterAll(async () => {
  await fresh?.stop();
  await stack?.stop();
}, 60_000);

/** A test wallet sending the service's user transactions, as the seeded history does. */
function user(rpcUrl: string, d: Deployments, index: number) {
  const from = accountAddress(index);
  const publicClient = createPublicClient({ chain: devnetChain, transport: http(rpcUrl) });
  const wallet = createWalletClient({ chain: devnetChain, transport: http(rpcUrl), account: from });
  const c = d.contracts as Record<string, Address>;
  const token = (symbol: string) => d.tokens.find((t) => t.symbol === symbol)!.address;
  const read = <T>(address: Address, abi: Abi, functionName: string, args: readonly unknown[] = []) =>
    publicClient.readContract({ address, abi, functionName, args }) as Promise<T>;
  const hashes: Hex[] = [];
  const send = async (address: Address, abi: Abi, functionName: string, args: readonly unknown[]) => {
    const hash = await wallet.writeContract({ address, abi, functionName, args, gas: 30_000_000n, chain: devnetChain });
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    if (receipt.status !== "success") throw new Error(`${functionName} reverted`);
    hashes.push(hash);
  };
  const price = (symbol: string) => read<bigint>(c.markets!, marketRegistryAbi, "priceX18", [token(symbol)]);
  const nextId = (address: Address, abi: Abi) => read<bigint>(address, abi, "nextId");
  return {
    hashes,
    async openLadder(symbol: string, buyPercent: bigint) {
      const id = await nextId(c.ladderStrategy!, ladderStrategyAbi);
      const buy = ((await price(symbol)) * buyPercent) / 100n;
      const legs = [0n, 2n].map((step) => ({
        buyPriceX18: buy - (buy * step) / 100n,
        sellPriceX18: ((buy - (buy * step) / 100n) * 105n) / 100n,
        amount: 150n * USDG,
      }));
      await send(c.usdg!, testTokenAbi, "approve", [c.ladderStrategy!, 300n * USDG]);
      await send(c.ladderStrategy!, ladderStrategyAbi, "open", [token(symbol), legs, false, true, false]);
      return id;
    },
    async limitBuy(symbol: string, percent: bigint, amount: bigint) {
      const id = await nextId(c.limitOrderHook!, limitOrderHookAbi);
      await send(c.usdg!, testTokenAbi, "approve", [c.limitOrderHook!, amount]);
      await send(c.limitOrderHook!, limitOrderHookAbi, "create", [token(symbol), false, amount, ((await price(symbol)) * percent) / 100n]);
      return id;
    },
    async openGrid(symbol: string) {
      const id = await nextId(c.gridStrategy!, gridStrategyAbi);
      const p = await price(symbol);
      await send(c.usdg!, testTokenAbi, "approve", [c.gridStrategy!, 500n * USDG]);
      await send(c.gridStrategy!, gridStrategyAbi, "open", [
        { token: token(symbol), buyPriceX18: (p * 97n) / 100n, sellPriceX18: (p * 103n) / 100n, amountUsdg: 500n * USDG, repeat: true },
      ]);
      return id;
    },
    async mergedDeposit(amount: bigint) {
      const v = d.vaults.find((x) => x.family === "merged" && x.agent)!;
      await send(c.usdg!, testTokenAbi, "approve", [v.address, amount]);
      await send(v.address, mergedVaultAbi, "requestDeposit", [amount, from, 0n]);
    },
    async upDeposit(amount: bigint) {
      const v = d.vaults.find((x) => x.family === "up" && x.agent)!;
      await send(c.usdg!, testTokenAbi, "approve", [v.depositQueue!, amount]);
      await send(v.depositQueue!, upDepositQueueAbi, "requestDeposit", [amount, from, 0n]);
    },
    async swap(tokenIn: Address, tokenOut: Address, amountIn: bigint) {
      const router = c.swapRouter!;
      const out = await read<bigint>(c.aggregator!, devAggregatorAbi, "quote", [tokenIn, tokenOut, amountIn]);
      const route = encodeFunctionData({ abi: devAggregatorAbi, functionName: "swap", args: [tokenIn, tokenOut, amountIn, lessSlippage(out, 100), router] });
      await send(tokenIn, testTokenAbi, "approve", [router, amountIn]);
      await send(router, swapRouterAbi, "swap", [
        { tokenIn, tokenOut, amountIn, minAmountOut: lessSlippage((out * 999n) / 1000n, 100), recipient: from, aggregator: c.aggregator!, route },
      ]);
    },
    send,
    token,
  };
}

describe("the indexer through a reorg", () => {
  it("ends with the projections of a fresh index of the new chain, and nothing of the removed blocks", async () => {
    const d = readJson<Deployments>(stack.deploymentsFile);
    const c = d.contracts as Record<string, Address>;
    const start = await waitCaughtUp(stack.ponderUrl, stack.rpcUrl, 60_000, stack.log);
    const snapshot = await rpc<Hex>(stack.rpcUrl, "evm_snapshot");

    // Branch A: a ladder, a merged vault deposit, a limit order and a swap, then two empty blocks.
    const a = user(stack.rpcUrl, d, 2);
    await a.openLadder("tsTSLA", 97n);
    await a.mergedDeposit(2_000n * USDG);
    await a.limitBuy("LINK", 95n, 300n * USDG);
    await a.swap(c.usdg!, a.token("LINK"), 400n * USDG);
    await rpc(stack.rpcUrl, "hardhat_mine", ["0x2"]);
    const headA = await chainHead(stack.rpcUrl);
    await waitIndexedAt(stack.ponderUrl, headA, 60_000, stack.log);
    const sql = projectionsSql(stack.databaseUrl);
    // Rows that branch A's transactions wrote: its activity and its executed calls.
    const removedRows = async () => {
      const hashes = sql(a.hashes.map((h) => h.toLowerCase()));
      const [row] = await sql`select (select count(*) from ponder.activity where tx_hash in ${hashes})
        + (select count(*) from ponder.executed_call where tx_hash in ${hashes}) as n`;
      return Number(row!.n);
    };
    try {
      expect(await removedRows()).toBeGreaterThan(0);

      // Branch B from the same parent: different actions at the same heights (the ladder first, with other
      // lines; a cancelled and claimed order, a closed grid, a closed and collected ladder), then taller.
      await rpc(stack.rpcUrl, "evm_revert", [snapshot]);
      expect(await chainHead(stack.rpcUrl)).toBe(start);
      const b = user(stack.rpcUrl, d, 3);
      const ladderId = await b.openLadder("tsTSLA", 95n);
      await b.upDeposit(1_500n * USDG);
      const orderId = await b.limitBuy("LINK", 90n, 250n * USDG);
      await b.send(c.limitOrderHook!, limitOrderHookAbi, "cancel", [orderId]);
      await b.send(c.limitOrderHook!, limitOrderHookAbi, "claimBoth", [orderId]);
      await b.limitBuy("WETH", 92n, 120n * USDG);
      const gridId = await b.openGrid("WETH");
      await b.send(c.gridStrategy!, gridStrategyAbi, "setRepeat", [gridId, false]);
      await b.send(c.gridStrategy!, gridStrategyAbi, "close", [gridId]);
      await b.send(c.ladderStrategy!, ladderStrategyAbi, "setRepeat", [ladderId, 1]);
      await b.send(c.ladderStrategy!, ladderStrategyAbi, "close", [ladderId, 0]);
      await b.send(c.ladderStrategy!, ladderStrategyAbi, "collect", [ladderId, 3]);
      await b.swap(c.usdg!, b.token("SOLX"), 300n * USDG);
      await rpc(stack.rpcUrl, "hardhat_mine", ["0x3"]);
      const headB = await chainHead(stack.rpcUrl);
      expect(headB).toBeGreaterThan(headA);
      expect(headB - start).toBeLessThanOrEqual(30); // within Ponder's 30 blocks of finality
      await waitIndexedAt(stack.ponderUrl, headB, 60_000, stack.log);
      expect(stack.log.join("\n")).toContain("Reorged block");
      expect(await removedRows()).toBe(0);
    } finally {
      await sql.end();
    }
    const headB = await chainHead(stack.rpcUrl);

    // A second indexer over the same devnet, into a schema of its own: a fresh index of the new chain. (It
    // shares Ponder's cache of finalized chain data in the database; every block of both branches is newer.)
    fresh = await startIndexer(stack, { schema: "fresh", viewsSchema: "fresh_views" });
    await waitIndexedAt(fresh.ponderUrl, headB, 120_000, fresh.log);
    const [reorged, rebuilt] = await Promise.all([tableHashes(stack.databaseUrl, stack.schema), tableHashes(stack.databaseUrl, fresh.schema)]);
    expect(reorged).toEqual(rebuilt);
    expect(reorged.activity!.rows).toBeGreaterThan(0);

    // And the new branch's states are the contracts' own.
    expect((await differencesFromChain(stack)).differences).toEqual([]);
  }, 170_000);
});
