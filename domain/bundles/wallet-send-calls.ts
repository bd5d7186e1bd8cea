// The EIP-5792 (v2) wallet_sendCalls params of a bundle.
import { CHAIN_ID_HEX } from "../chain.js";
import { getAddress, numberToHex, type Address, type Hex } from "viem";
import { approvedSpender } from "./decode.js";
import type { Bundle, Step } from "./types.js";
import { sameAddress } from "../address.js";

export type WalletSendCalls = {
  version: "2.0.0";
  /** 4663 */
  chainId: typeof CHAIN_ID_HEX;
  from: Address;
  atomicRequired: boolean;
  calls: { to: Address; data: Hex; value: "0x0" }[];
};

/**
 * The rule for `atomicRequired`: true exactly when some step approves a spender that a later step of the
 * bundle calls (an approval followed by its use). Run apart, a failed use would leave the approval
 * standing (the ladder: some orders placed and the rest of the allowance open), so such a bundle goes all
 * at once or not at all. A bundle without that pair (one cancel, claim, close, redeem...) has nothing to
 * keep together and is sent as it is.
 */
export function requiresAtomic(steps: readonly Pick<Step, "to" | "data">[]): boolean {
  return steps.some((s, i) => {
    const spender = approvedSpender(s);
    return spender !== undefined && steps.slice(i + 1).some((later) => sameAddress(later.to, spender));
  });
}

/** The bundle's calls in order, for `owner`'s wallet on chain 4663; every value is 0x0. */
export function walletSendCalls(bundle: Pick<Bundle, "steps">, owner: Address): WalletSendCalls {
  return {
    version: "2.0.0",
    chainId: CHAIN_ID_HEX,
    from: getAddress(owner),
    atomicRequired: requiresAtomic(bundle.steps),
    calls: bundle.steps.map((s) => ({ to: s.to, data: s.data, value: numberToHex(s.value) as "0x0" })),
  };
}
