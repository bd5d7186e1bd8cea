// basket-buy: pay one token for basket tokens through the basket zap.
import { encodeFunctionData, type Address } from "viem";
import { basketZapAbi } from "../../../abis/index.js";
import type { Leg } from "./legs.js";
import { BundleError, type Bundle } from "../../bundles/types.js";
import { checkBuyLegs, checkLegs, legsParam } from "./legs.js";
import { checkAddress, checkAmount, checkUint } from "../../bundles/checks.js";
import { MAX_ZAP_CALL_BYTES, NATIVE_ETH, approvalParam, approveStep, byteLength, step } from "../../bundles/steps.js";
import { sameAddress } from "../../address.js";

export type BuildBasketBuyParameters = {
  /** The signing wallet: the recipient of the basket tokens (and of any leftovers). */
  owner: Address;
  zap: Address;
  /** The basket (its pool, which is also the basket token). */
  pool: Address;
  /** The paid token. */
  tokenIn: Address;
  /** Base units of tokenIn. */
  amountIn: bigint;
  /** One leg per basket token, in the pool's token order, each paid with tokenIn (recipient the zap). */
  legs: readonly Leg[];
  /** The least basket tokens (18 decimals). */
  minBptOut: bigint;
  /** Unix seconds; the zap refuses after it (10 minutes after prepare). */
  deadline: bigint;
};

/**
 * Approve exactly `amountIn` of tokenIn to the zap, then `buy(pool, tokenIn, amountIn, legs, minBptOut,
 * recipient: owner, deadline)`. A buy call over 32,000 bytes is ROUTE_TOO_LARGE.
 */
export function buildBasketBuy(parameters: BuildBasketBuyParameters): Bundle<"basket-buy"> {
  const owner = checkAddress("owner", parameters.owner);
  const zap = checkAddress("zap", parameters.zap);
  const pool = checkAddress("pool", parameters.pool);
  const tokenIn = checkAddress("tokenIn", parameters.tokenIn);
  if (sameAddress(tokenIn, NATIVE_ETH)) throw new BundleError("NATIVE_ETH_IN", "native ETH cannot be paid in: use WETH", undefined, "tokenIn");
  const amountIn = checkAmount("amountIn", parameters.amountIn);
  const legs = checkLegs(parameters.legs);
  checkBuyLegs(legs, tokenIn, amountIn);
  const minBptOut = checkUint("minBptOut", parameters.minBptOut);
  const deadline = checkUint("deadline", parameters.deadline);
  const data = encodeFunctionData({ abi: basketZapAbi, functionName: "buy", args: [pool, tokenIn, amountIn, legs, minBptOut, owner, deadline] });
  if (byteLength(data) > MAX_ZAP_CALL_BYTES)
    throw new BundleError("ROUTE_TOO_LARGE", `the zap call is ${byteLength(data)} bytes, over ${MAX_ZAP_CALL_BYTES}`, undefined, "legs");
  return {
    kind: "basket-buy",
    steps: [approveStep(tokenIn, zap, amountIn, "amountIn"), step(zap, data)],
    params: {
      side: "buy",
      owner,
      pool,
      zap,
      token: tokenIn,
      amount: amountIn.toString(),
      minOut: minBptOut.toString(),
      recipient: owner,
      deadline: Number(deadline),
      legs: legsParam(legs),
      approvals: [approvalParam(tokenIn, zap, amountIn)],
    },
  };
}
