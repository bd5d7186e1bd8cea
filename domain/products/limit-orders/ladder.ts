// ladder: 2-20 limit orders on one market, one side, after one approval of their total.
import { encodeFunctionData, maxUint256, type Address } from "viem";
import { limitOrderHookAbi } from "../../../abis/index.js";
import { BundleError, type Bundle } from "../../bundles/types.js";
import { checkAddress, checkAmount, checkBoolean } from "../../bundles/checks.js";
import { approvalParam, approveStep, step } from "../../bundles/steps.js";

export const LADDER_MIN_ORDERS = 2;
export const LADDER_MAX_ORDERS = 20;

export type LadderOrder = {
  /** Base units of the input (the token when selling, USDG when buying). */
  amountIn: bigint;
  /** USDG per whole token in 18 decimals. */
  priceX18: bigint;
};

export type BuildLadderParameters = {
  /** The signing wallet: every order's owner. */
  owner: Address;
  hook: Address;
  usdg: Address;
  token: Address;
  /** The side of every order: true sells the token, false buys it with USDG. */
  sellToken: boolean;
  /** 2-20 orders. */
  orders: readonly LadderOrder[];
};

/**
 * One approval of exactly the orders' total input to the hook, then one
 * `create(token, sellToken, amountIn, priceX18)` per order, in the given order.
 */
export function buildLadder(parameters: BuildLadderParameters): Bundle<"ladder"> {
  const owner = checkAddress("owner", parameters.owner);
  const hook = checkAddress("hook", parameters.hook);
  const usdg = checkAddress("usdg", parameters.usdg);
  const token = checkAddress("token", parameters.token);
  const sellToken = checkBoolean("sellToken", parameters.sellToken);
  const { orders } = parameters;
  if (!Array.isArray(orders) || orders.length < LADDER_MIN_ORDERS || orders.length > LADDER_MAX_ORDERS)
    throw new BundleError("INVALID_REQUEST", `orders must hold ${LADDER_MIN_ORDERS}-${LADDER_MAX_ORDERS} orders`, undefined, "orders");
  const checked = orders.map((o, i) => {
    try {
      return { amountIn: checkAmount("amountIn", o.amountIn), priceX18: checkAmount("priceX18", o.priceX18) };
    } catch (e) {
      if (e instanceof BundleError) throw new BundleError(e.code, `order ${i + 1}: ${e.message}`, { ...e.details, part: i + 1 }, `orders[${i}].${e.field}`);
      throw e;
    }
  });
  const total = checked.reduce((sum, o) => sum + o.amountIn, 0n);
  if (total > maxUint256) throw new BundleError("INVALID_REQUEST", "the orders' total exceeds 2^256-1", undefined, "orders");
  const input = sellToken ? token : usdg;
  const creates = checked.map((o) =>
    step(hook, encodeFunctionData({ abi: limitOrderHookAbi, functionName: "create", args: [token, sellToken, o.amountIn, o.priceX18] })),
  );
  return {
    kind: "ladder",
    steps: [approveStep(input, hook, total, "orders"), ...creates],
    params: {
      owner,
      hook,
      token,
      sellToken,
      tokenIn: input,
      total: total.toString(),
      orders: checked.map((o) => ({ amountIn: o.amountIn.toString(), priceX18: o.priceX18.toString() })),
      approvals: [approvalParam(input, hook, total)],
    },
  };
}
