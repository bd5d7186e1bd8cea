// Aggregator legs of the basket zap and maker, checked and shown.
import type { Address, Hex } from "viem";
import { BundleError } from "../../bundles/types.js";
import { checkAddress, checkHex, checkUint } from "../../bundles/checks.js";
import { sameAddress } from "../../address.js";

/** RouteCall.sol's `Leg`: `data` is aggregator calldata that pays `tokenOut` back to the caller. */
export type Leg = { tokenIn: Address; tokenOut: Address; amountIn: bigint; data: Hex };

export const MAX_BASKET_LEGS = 8;

/** 1-8 legs with valid fields, checksummed; INVALID_REQUEST naming the part otherwise. */
export function checkLegs(legs: readonly Leg[] | undefined): Leg[] {
  if (!Array.isArray(legs) || legs.length < 1 || legs.length > MAX_BASKET_LEGS)
    throw new BundleError("INVALID_REQUEST", `legs must hold 1-${MAX_BASKET_LEGS} legs`, undefined, "legs");
  return legs.map((leg, i) => {
    try {
      return {
        tokenIn: checkAddress("tokenIn", leg.tokenIn),
        tokenOut: checkAddress("tokenOut", leg.tokenOut),
        amountIn: checkUint("amountIn", leg.amountIn),
        data: checkHex("data", leg.data),
      };
    } catch (e) {
      if (e instanceof BundleError) throw new BundleError(e.code, `leg ${i + 1}: ${e.message}`, { ...e.details, part: i + 1 }, `legs[${i}].${e.field}`);
      throw e;
    }
  });
}

/** A buy's legs all pay with `tokenIn` and together spend at most `amountIn` (BasketLegs.runBuyLegs). */
export function checkBuyLegs(legs: readonly Leg[], tokenIn: Address, amountIn: bigint) {
  legs.forEach((leg, i) => {
    if (!sameAddress(leg.tokenIn, tokenIn))
      throw new BundleError("INVALID_REQUEST", `leg ${i + 1} must pay with the token paid in`, { part: i + 1 }, `legs[${i}].tokenIn`);
  });
  const spent = legs.reduce((sum, leg) => sum + leg.amountIn, 0n);
  if (spent > amountIn) throw new BundleError("INVALID_REQUEST", "the legs spend more than the amount paid in", undefined, "legs");
}

/** How params show the legs. */
export function legsParam(legs: readonly Leg[]) {
  return legs.map((leg) => ({ tokenIn: leg.tokenIn, tokenOut: leg.tokenOut, amountIn: leg.amountIn.toString(), data: leg.data }));
}
