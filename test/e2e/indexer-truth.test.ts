// The indexer's projections are the chain's: over the seeded devnet, every vault's supply and every
// holder's shares, every limit order, grid, ladder (with its parts) and basket (balances, supply, every
// holder) equal what the contracts answer to eth_call at the block the indexer has indexed. So do the
// vault figures that move with the market (TVL, share price, every position's value), as the reads
// value them, once the market has moved since the pair vaults' last harvest or other book change.
import { createPublicClient, createWalletClient, formatUnits, getAddress, http, parseEther, type Address } from "viem";
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { describe, expect, inject, it } from "vitest";
import { agentAccountAbi, agentAccountFactoryAbi, stockVaultAbi } from "../../abis/index.js";
import { agentVaultList } from "../../usecases/answers/vaults.js";
import { chain4663 } from "../../adapters/chain/client.js";
import { loadDeployments } from "../../adapters/chain/deployments.js";
import { createProjectionsDb, createProjectionsPostgres } from "../../adapters/db/projections.js";
import { accountAnswer } from "../../usecases/answers/accounts.js";
import { differencesFromChain, indexedBlock, projectionsSql } from "../helpers/indexer.js";

const stack = inject("stack");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("the indexer against the chain", () => {
  it("projects every vault (its figures valued now), holder, order, grid, ladder and basket as the contracts answer at one block", async () => {
    // The simulator trades every second and harvests every 10 minutes: wait (if need be) for a block
    // where merged and up vaults are worth something else than at their last book change.
    let result = await differencesFromChain(stack);
    for (let attempt = 0; attempt < 20 && !(result.movedSinceBooks.includes("merged") && result.movedSinceBooks.includes("up")); attempt++) {
      await sleep(1500);
      result = await differencesFromChain(stack);
    }
    const { block, checked, differences, movedSinceBooks } = result;
    expect(block).toBeGreaterThan(0);
    expect(new Set(movedSinceBooks)).toEqual(new Set(["merged", "up"]));
    expect(differences).toEqual([]);
    // The seeded history has something of each kind to compare.
    for (const what of [
      "vault",
      "vault_position",
      "vault_figures",
      "vault_position_value",
      "limit_order",
      "grid",
      "ladder",
      "ladder_leg",
      "basket",
      "basket_balance",
    ]) {
      expect(checked[what] ?? 0, what).toBeGreaterThan(0);
    }
  }, 180_000);

  it("answers every agent vault's TVL and share price, and every position's value, as eth_call at one block", async () => {
    const d = loadDeployments(stack.deploymentsFile);
    const chain = createPublicClient({ chain: chain4663, transport: http(stack.rpcUrl, { batch: { batchSize: 200 } }) });
    const reads = createProjectionsDb({ sql: createProjectionsPostgres({ url: stack.databaseUrl, max: 4 }), viewsSchema: stack.viewsSchema });
    try {
      // The answers, read while the indexer stayed at one block.
      const read = async () => {
        const vaults = await agentVaultList({ reads, deployments: d }, Math.floor(Date.now() / 1000));
        const owners = await reads.selectFrom("vaultPosition").select("owner").distinct().where("shares", ">", 0n).execute();
        const accounts = await Promise.all(owners.map(({ owner }) => accountAnswer({ reads, deployments: d, owner, now: new Date() })));
        return { vaults, positions: accounts.flatMap((a) => a.account.vaults.map((p) => ({ ...p, owner: a.account.owner }))) };
      };
      let block: number | undefined;
      let answers: Awaited<ReturnType<typeof read>> | undefined;
      for (let attempt = 0; attempt < 50 && block === undefined; attempt++) {
        const before = await indexedBlock(stack.ponderUrl);
        answers = await read();
        if (before !== undefined && before === (await indexedBlock(stack.ponderUrl))) block = before;
      }
      expect(block).toBeDefined();
      const blockNumber = BigInt(block!);
      const call = (address: string, functionName: "totalAssets" | "convertToAssets", args: readonly bigint[] = []) =>
        chain.readContract({ address: address as Address, abi: stockVaultAbi, functionName, args: args as never, blockNumber }) as Promise<bigint>;

      expect(new Set(answers!.vaults.map((v) => v.family))).toEqual(new Set(["merged", "up", "stock-token"]));
      for (const v of answers!.vaults) {
        expect([v.address, v.tvlUnits]).toEqual([v.address, (await call(v.address, "totalAssets")).toString()]);
        const perShare = await call(v.address, "convertToAssets", [10n ** BigInt(v.shareDecimals)]);
        expect([v.address, v.sharePrice]).toEqual([v.address, Number(formatUnits(perShare, v.asset.decimals))]);
      }
      expect(new Set(answers!.positions.map((p) => p.family))).toEqual(new Set(["merged", "up", "stock-token"]));
      for (const p of answers!.positions) {
        expect([p.vault, p.owner, p.valueUnits]).toEqual([p.vault, p.owner, (await call(p.vault, "convertToAssets", [BigInt(p.sharesUnits)])).toString()]);
      }
    } finally {
      await reads.destroy();
    }
  }, 180_000);

  it("projects every agent account of the factory with its owner and agent (one made here, by a fresh key)", async () => {
    const d = loadDeployments(stack.deploymentsFile);
    const factory = d.contracts.agentAccountFactory!;
    const chain = createPublicClient({ chain: chain4663, transport: http(stack.rpcUrl) });
    const wallet = (account: ReturnType<typeof privateKeyToAccount> | ReturnType<typeof mnemonicToAccount>) =>
      createWalletClient({ account, chain: { ...chain4663, rpcUrls: { default: { http: [stack.rpcUrl] } } }, transport: http(stack.rpcUrl) });
    const owner = privateKeyToAccount(generatePrivateKey());
    const agent = privateKeyToAccount(generatePrivateKey()).address;
    const admin = mnemonicToAccount("test test test test test test test test test test test junk", { addressIndex: 10 });
    await chain.waitForTransactionReceipt({ hash: await wallet(admin).sendTransaction({ to: owner.address, value: parseEther("1") }) });
    const limits = { floorX18: 1n, ceilingX18: 10n ** 24n, budgetUsdg: 1_000_000n, feeCapBps: 100, minSpreadBps: 500 };
    const created = await chain.waitForTransactionReceipt({
      hash: await wallet(owner).writeContract({ address: factory, abi: agentAccountFactoryAbi, functionName: "create", args: [agent, limits] }),
    });
    expect(created.status).toBe("success");

    const sql = projectionsSql(stack.databaseUrl);
    try {
      // The rows at one indexed block (at or after the creation), and the chain's answer at that block.
      let block = 0;
      let rows: { address: string; owner: string; agent: string }[] = [];
      for (let attempt = 0; attempt < 200; attempt++) {
        const before = (await indexedBlock(stack.ponderUrl)) ?? 0;
        rows = await sql<typeof rows>`select address, owner, agent from ${sql(stack.viewsSchema)}.agent_account order by address`;
        if (before >= Number(created.blockNumber) && before === (await indexedBlock(stack.ponderUrl))) {
          block = before;
          break;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(block).toBeGreaterThanOrEqual(Number(created.blockNumber));
      const blockNumber = BigInt(block);
      const accounts = await chain.readContract({ address: factory, abi: agentAccountFactoryAbi, functionName: "accounts", blockNumber });
      const onChain = await Promise.all(
        accounts.map(async (a: Address) => ({
          address: a.toLowerCase(),
          owner: (await chain.readContract({ address: a, abi: agentAccountAbi, functionName: "owner", blockNumber })).toLowerCase(),
          agent: (await chain.readContract({ address: a, abi: agentAccountAbi, functionName: "agent", blockNumber })).toLowerCase(),
        })),
      );
      expect(rows).toEqual(onChain.sort((a, b) => (a.address < b.address ? -1 : 1)));
      expect(rows.map((r) => getAddress(r.agent))).toContain(agent);
    } finally {
      await sql.end();
    }
  });
});
