// The calls a builder makes: one step, an exact ERC-20 approval and how params show it, and the conventions
// the calls follow (native ETH's placeholder address, the zap's largest call). Only the two constants are
// exported from the package index.
import { encodeFunctionData, maxUint256, type Address, type Hex } from "viem";
import { testTokenAbi } from "../../abis/index.js";
import { BundleError, type Step } from "./types.js";

/** The address the swap router and aggregators use for native ETH. */
export const NATIVE_ETH: Address = "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE";

/** The basket zap's (and maker's) largest call, in bytes (spec Limits: zap call size). */
export const MAX_ZAP_CALL_BYTES = 32_000;

export function step(to: Address, data: Hex): Step {
  return { to, data, value: 0n };
}

/** ERC-20 approve of exactly `amount` (never unlimited); `field` is the builder's parameter the amount comes from. */
export function approveStep(token: Address, spender: Address, amount: bigint, field: string): Step {
  if (amount === maxUint256) throw new BundleError("INVALID_REQUEST", `${field}: an approval must not be unlimited`, undefined, field);
  return step(token, encodeFunctionData({ abi: testTokenAbi, functionName: "approve", args: [spender, amount] }));
}

/** How params show an approval. */
export function approvalParam(token: Address, spender: Address, amount: bigint) {
  return { token, spender, amount: amount.toString() };
}

/** Bytes of a hex string. */
export function byteLength(data: Hex): number {
  return (data.length - 2) / 2;
}
