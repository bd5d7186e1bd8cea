// The activity feed through a real reorg: on a still devnet of its own, wallet 2 gets a change,
// then a deposit on branch A that the agent is given; the devnet reverts to before it and mines a
// taller branch B with another deposit at the same heights (so the same change ids, other blocks).
// An agent that follows the documented rule (on `reorged: true`, drop what it holds after `after`,
// then apply the changes) ends with exactly the new branch's changes.
import { parseUnits, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonRpc } from "../helpers/json-rpc.js";
import { mergedVaultAbi, testTokenAbi } from "../../abis/index.js";
import type { Deployments } from "../../adapters/chain/deployments.js";
import { lastPositionOf } from "../../domain/activity-position.js";
import { json, randomPrefix, type testApp } from "../api/support.js";
import { openStackApp, type StackApp } from "../helpers/stack-app.js";
import { publicClientAt, testAccount, writeAt } from "../helpers/wallets.js";
import { startStack, type StartedStack } from "../helpers/stack.js";

type Change = { id: string; kind: string; txHash: string; block: number; blockHash: string; data: Record<string, unknown> };
type Activity = { cursor: string; after: string; changes: Change[]; more: boolean; reorged: boolean };

let stack: StartedStack;
let opened: StackApp;
let deployments: Deployments;
const prefix = randomPrefix();
let t: ReturnType<typeof testApp>;

beforeAll(async () => {
  // A still devnet: no block arrives unless this test sends it.
  stack = await startStack({ historyDays: 1, simIntervalMs: 3_600_000 });
  opened = await openStackApp(stack, { prefix, chainClient: false, app: { rateLimit: { keyPrefix: `${prefix}:rl` } } });
  ({ d: deployments, app: t } = opened);
}, 300_000);

afterAll(async () => {
  await opened?.close();
  await stack?.stop();
}, 60_000);

const rpc = <T>(method: string, params: unknown[] = []) => jsonRpc<T>(stack.rpcUrl, method, params);

describe("the activity feed through a reorg", () => {
  it("answers reorged: true from the last common block, and the agent ends with the new branch", async () => {
    const agent = testAccount(2);
    const client = publicClientAt(stack.rpcUrl);
    const vault = deployments.vaults.find((v) => v.family === "merged" && v.agent)!.address;
    const deposit = async (usdg: string): Promise<Hex> => {
      const amount = parseUnits(usdg, 6);
      await writeAt(stack.rpcUrl, client, agent, { address: deployments.contracts.usdg!, abi: testTokenAbi, functionName: "approve", args: [vault, amount] });
      const receipt = await writeAt(stack.rpcUrl, client, agent, {
        address: vault,
        abi: mergedVaultAbi,
        functionName: "requestDeposit",
        args: [amount, agent.address, 0n],
      });
      return receipt.transactionHash;
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
