// The indexer's projections are the chain's: over the seeded devnet, every vault's supply and every
// holder's shares, every limit order, grid, ladder (with its parts) and basket (balances, supply, every
// holder) equal what the contracts answer to eth_call at the block the indexer has indexed.
import { createPublicClient, createWalletClient, getAddress, http, parseEther, type Address } from "viem";
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { describe, expect, inject, it } from "vitest";
import { agentAccountAbi, agentAccountFactoryAbi } from "../../abis/index.js";
import { chain4663 } from "../../adapters/chain/client.js";
import { loadDeployments } from "../../adapters/chain/deployments.js";
import { differencesFromChain, indexedBlock, projectionsSql } from "../helpers/indexer.js";

const stack = inject("stack");

describe("the indexer against the chain", () => {
  it("projects every vault, holder, order, grid, ladder and basket as the contracts answer at one block", async () => {
    const { block, checked, differences } = await differencesFromChain(stack);
    expect(block).toBeGreaterThan(0);
    expect(differences).toEqual([]);
    // The seeded history has something of each kind to compare.
    for (const what of ["vault", "vault_position", "limit_order", "grid", "ladder", "ladder_leg", "basket", "basket_balance"]) {
      expect(checked[what] ?? 0, what).toBeGreaterThan(0);
    }
  });

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
