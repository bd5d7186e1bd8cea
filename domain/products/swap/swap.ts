// swap: any token for any token on the service's swap router, through the aggregator.
import { encodeFunctionData, type Address } from "viem";
import { swapRouterAbi } from "../../../abis/index.js";
import { BundleError, type Bundle, type RouteCalldata } from "../../bundles/types.js";
import { checkAddress, checkAmount, checkHex, checkUint } from "../../bundles/checks.js";
import { NATIVE_ETH, approvalParam, approveStep, step } from "../../bundles/steps.js";
import { sameAddress } from "../../address.js";

export type BuildSwapParameters = {
  /** The signing wallet: the recipient of the output. */
  owner: Address;
  /** The swap router. */
  router: Address;
  tokenIn: Address;
  /** May be native ETH (0xEeee…EEeE): the router unwraps WETH. */
  tokenOut: Address;
  /** Base units of tokenIn. */
  amountIn: bigint;
  /** The least output after the router's fee: the quote less the 0.1% fee and slippageBps. */
  minAmountOut: bigint;
  /** The aggregator route for the router (AggregatorRoute fits): `to` is the aggregator, `data` its calldata. */
  route: RouteCalldata;
};

/**
 * Approve exactly `amountIn` of tokenIn to the router, then `swap({tokenIn, tokenOut, amountIn, minAmountOut,
 * recipient: owner, aggregator: route.to, route: route.data})`. Native ETH in is NATIVE_ETH_IN; the same
 * token on both sides is SAME_TOKEN.
 */
export function buildSwap(parameters: BuildSwapParameters): Bundle<"swap"> {
  const owner = checkAddress("owner", parameters.owner);
  const router = checkAddress("router", parameters.router);
  const tokenIn = checkAddress("tokenIn", parameters.tokenIn);
  const tokenOut = checkAddress("tokenOut", parameters.tokenOut);
  if (sameAddress(tokenIn, NATIVE_ETH)) throw new BundleError("NATIVE_ETH_IN", "native ETH cannot be paid in: use WETH", undefined, "tokenIn");
  if (sameAddress(tokenIn, tokenOut)) throw new BundleError("SAME_TOKEN", "tokenIn and tokenOut are the same token", undefined, "tokenOut");
  const amountIn = checkAmount("amountIn", parameters.amountIn);
  const minAmountOut = checkUint("minAmountOut", parameters.minAmountOut);
  if (!parameters.route) throw new BundleError("INVALID_REQUEST", "route is required", undefined, "route");
  const aggregator = checkAddress("route.to", parameters.route.to);
  const route = checkHex("route.data", parameters.route.data);
  const data = encodeFunctionData({
    abi: swapRouterAbi,
    functionName: "swap",
    args: [{ tokenIn, tokenOut, amountIn, minAmountOut, recipient: owner, aggregator, route }],
  });
  return {
    kind: "swap",
    steps: [approveStep(tokenIn, router, amountIn, "amountIn"), step(router, data)],
    params: {
      owner,
      router,
      tokenIn,
      tokenOut,
      amountIn: amountIn.toString(),
      minAmountOut: minAmountOut.toString(),
      recipient: owner,
      aggregator,
      approvals: [approvalParam(tokenIn, router, amountIn)],
    },
  };
}
