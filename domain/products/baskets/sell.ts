// basket-sell: sell basket tokens for one token through the basket zap.
import { encodeFunctionData, type Address } from "viem";
import { basketZapAbi } from "../../../abis/index.js";
import type { Leg } from "./legs.js";
import { BundleError, type Bundle } from "../../bundles/types.js";
import { checkLegs, legsParam } from "./legs.js";
import { checkAddress, checkAmount, checkUint } from "../../bundles/checks.js";
import { MAX_ZAP_CALL_BYTES, NATIVE_ETH, approvalParam, approveStep, byteLength, step } from "../../bundles/steps.js";
import { sameAddress } from "../../address.js";

export type BuildBasketSellParameters = {
  /** The signing wallet: the recipient of the output (and of what the legs leave, in kind). */
  owner: Address;
  zap: Address;
  /** The basket (its pool, which is also the basket token). */
  pool: Address;
  /** Basket tokens in (18 decimals). */
  bptIn: bigint;
  /** The token received. */
  tokenOut: Address;
  /** One leg per basket token, in the pool's token order, each selling into tokenOut (recipient the zap). */
  legs: readonly Leg[];
  /** The least tokenOut. */
  minOut: bigint;
  /** Unix seconds; the zap refuses after it. */
  deadline: bigint;
};

/**
 * Approve exactly `bptIn` basket tokens to the zap, then `sell(pool, bptIn, tokenOut, legs, minOut,
 * recipient: owner, deadline)`. A sell call over 32,000 bytes is ROUTE_TOO_LARGE.
 */
export function buildBasketSell(parameters: BuildBasketSellParameters): Bundle<"basket-sell"> {
  const owner = checkAddress("owner", parameters.owner);
  const zap = checkAddress("zap", parameters.zap);
  const pool = checkAddress("pool", parameters.pool);
  const bptIn = checkAmount("bptIn", parameters.bptIn);
  const tokenOut = checkAddress("tokenOut", parameters.tokenOut);
  if (sameAddress(tokenOut, NATIVE_ETH))
    throw new BundleError("INVALID_REQUEST", "the zap pays ERC-20 tokens: receive WETH, not native ETH", undefined, "tokenOut");
  const legs = checkLegs(parameters.legs);
  legs.forEach((leg, i) => {
    if (!sameAddress(leg.tokenOut, tokenOut))
      throw new BundleError("INVALID_REQUEST", `leg ${i + 1} must sell into the token received`, { part: i + 1 }, `legs[${i}].tokenOut`);
  });
  const minOut = checkUint("minOut", parameters.minOut);
  const deadline = checkUint("deadline", parameters.deadline);
  const data = encodeFunctionData({ abi: basketZapAbi, functionName: "sell", args: [pool, bptIn, tokenOut, legs, minOut, owner, deadline] });
  if (byteLength(data) > MAX_ZAP_CALL_BYTES)
    throw new BundleError("ROUTE_TOO_LARGE", `the zap call is ${byteLength(data)} bytes, over ${MAX_ZAP_CALL_BYTES}`, undefined, "legs");
  return {
    kind: "basket-sell",
    steps: [approveStep(pool, zap, bptIn, "bptIn"), step(zap, data)],
    params: {
      side: "sell",
      owner,
      pool,
      zap,
      token: tokenOut,
      amount: bptIn.toString(),
      minOut: minOut.toString(),
      recipient: owner,
      deadline: Number(deadline),
      legs: legsParam(legs),
      approvals: [approvalParam(pool, zap, bptIn)],
    },
  };
}
