import { getAddress } from "viem";
import { describe, expect, it } from "vitest";
import { buildGrid, buildLadder, buildVaultDeposit, requiresAtomic, walletSendCalls } from "../../../domain/bundles/index.js";

const OWNER = getAddress("0x00000000000000000000000000000000000a11ce");
const VAULT = getAddress("0x0000000000000000000000000000000000001001");
const USDG = getAddress("0x0000000000000000000000000000000000002002");
const HOOK = getAddress("0x0000000000000000000000000000000000007007");

describe("walletSendCalls", () => {
  it("is EIP-5792 v2 params for chain 0x1237 from the owner, the steps in order with value 0x0", () => {
    const bundle = buildVaultDeposit({ family: "merged", owner: OWNER, vault: VAULT, usdg: USDG, assets: 5n, minShares: 1n });
    expect(walletSendCalls(bundle, OWNER.toLowerCase() as `0x${string}`)).toEqual({
      version: "2.0.0",
      chainId: "0x1237",
      from: OWNER,
      atomicRequired: true,
      calls: bundle.steps.map((s) => ({ to: s.to, data: s.data, value: "0x0" })),
    });
  });

  it("requires atomicity exactly when an approval is followed by a call to its spender", () => {
    const ladder = buildLadder({
      owner: OWNER,
      hook: HOOK,
      usdg: USDG,
      token: VAULT,
      sellToken: false,
      orders: [
        { amountIn: 1n, priceX18: 1n },
        { amountIn: 2n, priceX18: 1n },
      ],
    });
    expect(walletSendCalls(ladder, OWNER).atomicRequired).toBe(true);
    const close = buildGrid({ owner: OWNER, strategy: HOOK, action: "close", id: 1n });
    expect(walletSendCalls(close, OWNER).atomicRequired).toBe(false);
    // An approval whose spender no later step calls, or a use before the approval, is not such a pair.
    expect(requiresAtomic([ladder.steps[0]!])).toBe(false);
    expect(requiresAtomic([ladder.steps[1]!, ladder.steps[0]!])).toBe(false);
    expect(requiresAtomic([ladder.steps[0]!, close.steps[0]!])).toBe(true);
  });
});
