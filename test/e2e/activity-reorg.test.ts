// The activity feed through a real reorg: on a still devnet of its own, wallet 2 gets a change,
// then a deposit on branch A that the agent is given; the devnet reverts to before it and mines a
// taller branch B with another deposit at the same heights (so the same change ids, other blocks).
// An agent that follows the documented rule (on `reorged: true`, drop what it holds after `after`,
// then apply the changes) ends with exactly the new branch's changes.
import type { Redis } from "ioredis";
import type { Kysely } from "kysely";
import { createPublicClient, createWalletClient, defineChain, http, parseUnits, type Hex } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mergedVaultAbi, testTokenAbi } from "../../abis/index.js";
import { loadDeployments, type Deployments } from "../../adapters/chain/deployments.js";
import type { Database } from "../../adapters/db/api-schema.js";
import { createProjectionsDb, createProjectionsPostgres, type Projections } from "../../adapters/db/projections.js";
import { lastPositionOf } from "../../domain/activity-position.js";
import { connectRedis, createTestDatabase, deleteKeys, json, migratedDb, randomPrefix, testApp, type TestDatabase } from "../api/support.js";
import { startStack, type StartedStack } from "../helpers/stack.js";

type Change = { id: string; kind: string; txHash: string; block: number; blockHash: string; data: Record<string, unknown> };
type Activity = { cursor: string; after: string; changes: Change[]; more: boolean; reorged: boolean };

const MNEMONIC = "test test test test test test test test test test test junk";

let stack: StartedStack;
let database: TestDatabase;
let db: Kysely<Database>;
let reads: Kysely<Projections>;
let redis: Redis;
let deployments: Deployments;
const prefix = randomPrefix();
let t: ReturnType<typeof testApp>;

beforeAll(async () => {
  // A still devnet: no block arrives unless this test sends it.
  stack = await startStack({ historyDays: 1, simIntervalMs: 3_600_000 });
  database = await createTestDatabase();
  db = await migratedDb(database);
  reads = createProjectionsDb({ sql: createProjectionsPostgres({ url: stack.databaseUrl }), viewsSchema: stack.viewsSchema });
  redis = await connectRedis();
  deployments = loadDeployments(stack.deploymentsFile);
  t = testApp({ db, redis, reads, deployments, rateLimit: { keyPrefix: `${prefix}:rl` } });
}, 300_000);

afterAll(async () => {
  await deleteKeys(redis, prefix);
  await Promise.allSettled([db?.destroy(), reads?.destroy(), redis?.quit()]);
  await database?.drop();
  await stack?.stop();
}, 60_000);

async function rpc<T>(method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(stack.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

describe("the activity feed through a reorg", () => {
  it("answers reorged: true from the last common block, and the agent ends with the new branch", async () => {
    const chain = defineChain({
      id: 4663,
      name: "Devnet 4663",
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [stack.rpcUrl] } },
    });
    const agent = mnemonicToAccount(MNEMONIC, { addressIndex: 2 });
    const wallet = createWalletClient({ account: agent, chain, transport: http(stack.rpcUrl) });
    const client = createPublicClient({ chain, transport: http(stack.rpcUrl) });
    const vault = deployments.vaults.find((v) => v.family === "merged" && v.agent)!.address;
    const deposit = async (usdg: string): Promise<Hex> => {
      const amount = parseUnits(usdg, 6);
      await client.waitForTransactionReceipt({
        hash: await wallet.writeContract({ address: deployments.contracts.usdg!, abi: testTokenAbi, functionName: "approve", args: [vault, amount] }),
      });
      const hash = await wallet.writeContract({ address: vault, abi: mergedVaultAbi, functionName: "requestDeposit", args: [amount, agent.address, 0n] });
      expect((await client.waitForTransactionReceipt({ hash })).status).toBe("success");
      return hash;
    };

    // The agent, following the documented rule.
    const held: Change[] = [];
    let cursor: string | undefined;
    const answers: Activity[] = [];
    const poll = async () => {
      const response = await t.app.request(`/v1/agent/accounts/${agent.address}/activity${cursor ? `?cursor=${cursor}` : ""}`);
      expect(response.status, await response.clone().text()).toBe(200);
      const answer = (await json(response)).data as Activity;
      answers.push(answer);
      if (answer.reorged) held.splice(0, held.length, ...held.filter((c) => BigInt(c.id) <= BigInt(answer.after)));
      held.push(...answer.changes);
      cursor = answer.cursor;
      return answer;
    };
    const pollUntil = async (done: () => boolean, what: string) => {
      const deadline = Date.now() + 60_000;
      while (!done()) {
        if (Date.now() > deadline)
          throw new Error(`${what}: not seen in 60 s; answers: ${JSON.stringify(answers.slice(-3))}\n${stack.log.slice(-20).join("\n")}`);
        const answer = await poll();
        if (!answer.more) await new Promise((r) => setTimeout(r, 200));
      }
    };

    await poll(); // the baseline
    // A change every branch shares.
    const root = await deposit("10");
    await pollUntil(() => held.some((c) => c.txHash === root), "the shared change");
    const snapshot = await rpc<Hex>("evm_snapshot");

    // Branch A: a deposit, given to the agent.
    const onA = await deposit("20");
    await rpc("hardhat_mine", ["0x2"]);
    await pollUntil(() => held.some((c) => c.txHash === onA), "branch A's change");
    const given = held.find((c) => c.txHash === onA)!;

    // Branch B from the same parent, taller: a different deposit at the same heights.
    await rpc("evm_revert", [snapshot]);
    const onB = await deposit("30");
    await rpc("hardhat_mine", ["0x5"]);
    await pollUntil(() => held.some((c) => c.txHash === onB) && !held.some((c) => c.txHash === onA), "branch B replacing branch A");

    // What the agent holds now is exactly the chain's: the shared change, then branch B's.
    expect(held.map((c) => c.txHash)).toEqual([root, onB]);
    const replacement = held[1]!;
    expect(replacement.id).toBe(given.id); // the same position on the other branch
    expect(replacement.blockHash).not.toBe(given.blockHash);
    expect(replacement.data).toMatchObject({ assets: parseUnits("30", 6).toString() });
    const reorged = answers.filter((a) => a.reorged);
    expect(reorged.length).toBeGreaterThanOrEqual(1);
    // Every rewind went back at least to the last block the branches share (further when a poll falls
    // between Ponder reverting a block that stays canonical and re-indexing it).
    for (const answer of reorged) expect(BigInt(answer.after)).toBeLessThanOrEqual(lastPositionOf(BigInt(held[0]!.block)));
    // And the feed is calm again.
    expect(await poll()).toMatchObject({ reorged: false, changes: [] });
  }, 180_000);
});
