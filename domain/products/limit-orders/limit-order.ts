// limit-order: one order on the limit-order hook.
import { encodeFunctionData, type Address, type Hex } from "viem";
import { limitOrderHookAbi } from "../../../abis/index.js";
import type { Bundle } from "../../bundles/types.js";
import { checkAddress, checkAmount, checkBoolean, checkUint, required } from "../../bundles/checks.js";
import { approvalParam, approveStep, step } from "../../bundles/steps.js";

export type BuildLimitOrderParameters = {
  /** The signing wallet: the order's owner (the hook records the caller). */
  owner: Address;
  hook: Address;
  usdg: Address;
  /** The market's token. */
  token: Address;
  /** true: sell `amountIn` of the token for USDG; false: buy the token with `amountIn` USDG. */
  sellToken: boolean;
  /** Base units of the input (the token when selling, USDG when buying). */
  amountIn: bigint;
  /** Limit order: the line, USDG per whole token in 18 decimals. */
  priceX18?: bigint;
  /** true: a market order (createMarketOrder) with `minAmountOut`, filled now. */
  market?: boolean;
  /** Market order: the least output, in base units of the output. */
  minAmountOut?: bigint;
};

/**
 * Approve exactly `amountIn` of the input (the token when `sellToken`, else USDG) to the hook, then
 * `create(token, sellToken, amountIn, priceX18)`, or `createMarketOrder(token, sellToken, amountIn, minAmountOut)` when `market`.
 */
export function buildLimitOrder(parameters: BuildLimitOrderParameters): Bundle<"limit-order"> {
  const owner = checkAddress("owner", parameters.owner);
  const hook = checkAddress("hook", parameters.hook);
  const usdg = checkAddress("usdg", parameters.usdg);
  const token = checkAddress("token", parameters.token);
  const sellToken = checkBoolean("sellToken", parameters.sellToken);
  const amountIn = checkAmount("amountIn", parameters.amountIn);
  const market = checkBoolean("market", parameters.market ?? false);
  const input = sellToken ? token : usdg;
  const params: Record<string, unknown> = { owner, hook, token, sellToken, market, tokenIn: input, amountIn: amountIn.toString() };
  let data: Hex;
  if (market) {
    const minAmountOut = checkUint("minAmountOut", required("minAmountOut", parameters.minAmountOut, "for a market order"));
    data = encodeFunctionData({ abi: limitOrderHookAbi, functionName: "createMarketOrder", args: [token, sellToken, amountIn, minAmountOut] });
    params.minAmountOut = minAmountOut.toString();
  } else {
    const priceX18 = checkAmount("priceX18", required("priceX18", parameters.priceX18, "for a limit order"));
    data = encodeFunctionData({ abi: limitOrderHookAbi, functionName: "create", args: [token, sellToken, amountIn, priceX18] });
    params.priceX18 = priceX18.toString();
  }
  params.approvals = [approvalParam(input, hook, amountIn)];
  return { kind: "limit-order", steps: [approveStep(input, hook, amountIn, "amountIn"), step(hook, data)], params };
}
