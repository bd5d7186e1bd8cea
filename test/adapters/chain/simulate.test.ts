// Bundles are simulated as a whole before they are handed out: approvals carry to the steps after them.
import { encodeFunctionData, parseUnits, type Address, type PublicClient } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import { swapRouterAbi, testTokenAbi } from "../../../abis/index.js";
import { accountAddress } from "../../../devnet/chain.js";
import { createDevAggregator } from "../../../adapters/chain/dev-aggregator.js";
import { simulateFunded } from "../../../adapters/chain/bundle-funds.js";
import { ChainSimulator, type SimStep } from "../../../adapters/chain/simulate.js";
import { bootCore, type CoreFixture } from "../../helpers/devnet.js";

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
          abi: swapRouterAbi,
          functionName: "swap",
          args: [{ tokenIn: f.core.usdg, tokenOut: link, amountIn, minAmountOut: 0n, recipient: owner, aggregator: agg, route: route.data }],
        }),
      },
    ];
  };
});

describe("a chain's simulator", () => {
  it("finds the allowance slot of an ERC20", async () => {
    expect(await new ChainSimulator(f.chain.publicClient).allowanceSlot(f.core.usdg)).toBe(1n);
  });

  it("passes an approval followed by its use, although the owner never approved on chain", async () => {
    const result = await new ChainSimulator(f.chain.publicClient).simulate(owner, await steps(parseUnits("500", 6)));
    expect(result).toEqual({ ok: true, method: "eth_call+stateOverride" });
  });

  it("refuses a bundle whose approval is short, with the decoded reason and the step", async () => {
    const result = await new ChainSimulator(f.chain.publicClient).simulate(owner, await steps(parseUnits("499", 6)));
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.step).toBe(1);
      expect(result.reason).toMatch(/ERC20InsufficientAllowance/);
    }
  });

  it("refuses a swap through an aggregator the router does not use, with its reason string", async () => {
    const result = await new ChainSimulator(f.chain.publicClient).simulate(owner, await steps(parseUnits("500", 6), owner));
    expect(result).toMatchObject({ ok: false, step: 1, reason: "SWAP_CONTRACTS_CHANGED" });
  });
});

describe("simulateFunded: a short balance is an issue, not a refusal", () => {
  /** A wallet that holds nothing. */
  const unfunded = () => privateKeyToAccount(generatePrivateKey()).address;

  it("finds the balance slot of an ERC20", async () => {
    expect(await new ChainSimulator(f.chain.publicClient).balanceSlot(f.core.usdg)).toBe(0n);
  });

  it("an owner with no USDG: simulated over the granted balance, issues.balance and issues.allowance say what is missing", async () => {
    const { simulation, issues } = await simulateFunded(new ChainSimulator(f.chain.publicClient), unfunded(), await steps(parseUnits("500", 6)));
    expect(simulation).toEqual({ ok: true, method: "eth_call+stateOverride" });
    expect(issues).toEqual({
      balance: { token: f.core.usdg, actual: "0", expected: "500000000" },
      allowance: { spender: f.core.swapRouter, actual: "0" },
      simulationIncomplete: false,
    });
  });

  it("a funded owner: no balance issue; the allowance issue while the allowance is short", async () => {
    const { simulation, issues } = await simulateFunded(new ChainSimulator(f.chain.publicClient), owner, await steps(parseUnits("500", 6)));
    expect(simulation.ok).toBe(true);
    expect(issues.balance).toBeNull();
    expect(issues.allowance).toEqual({ spender: f.core.swapRouter, actual: "0" });
  });

  it("another revert of an unfunded owner's bundle stays a refusal, with its reason", async () => {
    const { simulation, issues } = await simulateFunded(new ChainSimulator(f.chain.publicClient), unfunded(), await steps(parseUnits("500", 6), owner));
    expect(simulation).toMatchObject({ ok: false, step: 1, reason: "SWAP_CONTRACTS_CHANGED" });
    expect(issues.balance).toMatchObject({ token: f.core.usdg, actual: "0" });
  });

  it("a balance that cannot be granted (no slot answers the probe): the bundle passes with simulationIncomplete", async () => {
    // The same node, but balance overrides are not seen: the layout of a token the probe cannot read.
    const real = f.chain.publicClient;
    const blind = new Proxy(real, {
      get(target, key, receiver) {
        if (key === "readContract") {
          return (args: Parameters<PublicClient["readContract"]>[0]) =>
            args.functionName === "balanceOf" && "stateOverride" in args && args.stateOverride ? Promise.resolve(0n) : target.readContract(args as never);
        }
        return Reflect.get(target, key, receiver);
      },
    }) as PublicClient;
    const { simulation, issues } = await simulateFunded(new ChainSimulator(blind), unfunded(), await steps(parseUnits("500", 6)));
    expect(simulation.ok).toBe(true);
    expect(issues).toMatchObject({ balance: { token: f.core.usdg, actual: "0", expected: "500000000" }, simulationIncomplete: true });
    // Without the shortfall the same client simulates in full.
    const funded = await simulateFunded(new ChainSimulator(blind), owner, await steps(parseUnits("500", 6)));
    expect(funded.issues.simulationIncomplete).toBe(false);
  });
});
