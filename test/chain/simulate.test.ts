// Bundles are simulated as a whole before they are handed out: approvals carry to the steps after them.
import { encodeFunctionData, parseUnits, type Address } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { swapRouterAbi, testTokenAbi } from "../../abis/index.js";
import { accountAddress } from "../../devnet/chain.js";
import { createDevAggregator } from "../../src/chain/dev-aggregator.js";
import { findAllowanceSlot, simulateBundle, type SimStep } from "../../src/chain/simulate.js";
import { bootCore, type CoreFixture } from "../helpers/devnet.js";

let f: CoreFixture;
const owner = accountAddress(4);
let steps: (amountApproved: bigint, aggregator?: Address) => Promise<SimStep[]>;

beforeAll(async () => {
  f = await bootCore([]);
  const link = f.core.tokens.find((t) => t.symbol === "LINK")!.address;
  const aggregator = createDevAggregator({ client: f.chain.publicClient, address: f.core.aggregator, markets: f.core.markets, usdg: f.core.usdg });
  const amountIn = parseUnits("500", 6);
  steps = async (amountApproved, agg = f.core.aggregator) => {
    const route = await aggregator.route({ tokenIn: f.core.usdg, tokenOut: link, amountIn, recipient: f.core.swapRouter, slippageBps: 100 });
    return [
      { to: f.core.usdg, data: encodeFunctionData({ abi: testTokenAbi, functionName: "approve", args: [f.core.swapRouter, amountApproved] }) },
      {
        to: f.core.swapRouter,
        data: encodeFunctionData({
          abi: swapRouterAbi, functionName: "swap",
          args: [{ tokenIn: f.core.usdg, tokenOut: link, amountIn, minAmountOut: 0n, recipient: owner, aggregator: agg, route: route.data }],
        }),
      },
    ];
  };
});

describe("simulateBundle", () => {
  it("finds the allowance slot of an ERC20", async () => {
    expect(await findAllowanceSlot(f.chain.publicClient, f.core.usdg)).toBe(1n);
  });

  it("passes an approval followed by its use, although the owner never approved on chain", async () => {
    const result = await simulateBundle(f.chain.publicClient, owner, await steps(parseUnits("500", 6)));
    expect(result).toEqual({ ok: true, method: "eth_call+stateOverride" });
  });

  it("refuses a bundle whose approval is short, with the decoded reason and the step", async () => {
    const result = await simulateBundle(f.chain.publicClient, owner, await steps(parseUnits("499", 6)));
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.step).toBe(1);
      expect(result.reason).toMatch(/ERC20InsufficientAllowance/);
    }
  });

  it("refuses a swap through an aggregator the router does not use, with its reason string", async () => {
    const result = await simulateBundle(f.chain.publicClient, owner, await steps(parseUnits("500", 6), owner));
    expect(result).toMatchObject({ ok: false, step: 1, reason: "SWAP_CONTRACTS_CHANGED" });
  });
});
