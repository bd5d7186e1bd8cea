// grid: open, openWithMarket, close, setRepeat or collect on the grid strategy.
import { encodeFunctionData, type Address, type Hex } from "viem";
import { gridStrategyAbi } from "../../../abis/index.js";
import { BundleError, type Bundle } from "../../bundles/types.js";
import { checkAddress, checkAmount, checkBoolean, checkChoice, checkUint, required } from "../../bundles/checks.js";
import { approvalParam, approveStep, step } from "../../bundles/steps.js";

export const gridActions = ["open", "openWithMarket", "close", "setRepeat", "collect"] as const;
export type GridAction = (typeof gridActions)[number];

export type BuildGridParameters = {
  /** The signing wallet: the grid's owner (the strategy records and pays the caller). */
  owner: Address;
  /** The grid strategy contract. */
  strategy: Address;
  action: GridAction;
  /** open, openWithMarket: USDG (what the grid is paid with). */
  usdg?: Address;
  /** open, openWithMarket: the market's token. */
  token?: Address;
  /** open, openWithMarket: the buy line, USDG per whole token in 18 decimals. */
  buyPriceX18?: bigint;
  /** open, openWithMarket: the sell line, above the buy line. */
  sellPriceX18?: bigint;
  /** open, openWithMarket: USDG base units the grid starts with. */
  amountUsdg?: bigint;
  /** open, openWithMarket, setRepeat: whether the grid repeats. */
  repeat?: boolean;
  /** openWithMarket: the least token the opening buy gets. */
  minTokenOut?: bigint;
  /** close, setRepeat, collect: the grid's id. */
  id?: bigint;
};

/**
 * open / openWithMarket: approve exactly `amountUsdg` USDG to the strategy, then
 * `open({token, buyPriceX18, sellPriceX18, amountUsdg, repeat})` or `openWithMarket(that, minTokenOut)`.
 * close, setRepeat, collect: one step, `close(id)`, `setRepeat(id, repeat)`, `collect(id)`.
 */
export function buildGrid(parameters: BuildGridParameters): Bundle<"grid"> {
  const owner = checkAddress("owner", parameters.owner);
  const strategy = checkAddress("strategy", parameters.strategy);
  const action = checkChoice("action", parameters.action, gridActions);
  const why = `for action ${action}`;
  const params: Record<string, unknown> = { owner, strategy, action };

  if (action === "open" || action === "openWithMarket") {
    const usdg = checkAddress("usdg", required("usdg", parameters.usdg, why));
    const token = checkAddress("token", required("token", parameters.token, why));
    const buyPriceX18 = checkAmount("buyPriceX18", required("buyPriceX18", parameters.buyPriceX18, why));
    const sellPriceX18 = checkUint("sellPriceX18", required("sellPriceX18", parameters.sellPriceX18, why));
    if (sellPriceX18 <= buyPriceX18) throw new BundleError("INVALID_REQUEST", "sellPriceX18 must be above buyPriceX18", undefined, "sellPriceX18");
    const amountUsdg = checkAmount("amountUsdg", required("amountUsdg", parameters.amountUsdg, why));
    const repeat = checkBoolean("repeat", required("repeat", parameters.repeat, why));
    const p = { token, buyPriceX18, sellPriceX18, amountUsdg, repeat };
    let data: Hex;
    if (action === "open") {
      data = encodeFunctionData({ abi: gridStrategyAbi, functionName: "open", args: [p] });
    } else {
      const minTokenOut = checkUint("minTokenOut", required("minTokenOut", parameters.minTokenOut, why));
      data = encodeFunctionData({ abi: gridStrategyAbi, functionName: "openWithMarket", args: [p, minTokenOut] });
      params.minTokenOut = minTokenOut.toString();
    }
    Object.assign(params, {
      token,
      buyPriceX18: buyPriceX18.toString(),
      sellPriceX18: sellPriceX18.toString(),
      amountUsdg: amountUsdg.toString(),
      repeat,
      approvals: [approvalParam(usdg, strategy, amountUsdg)],
    });
    return { kind: "grid", steps: [approveStep(usdg, strategy, amountUsdg, "amountUsdg"), step(strategy, data)], params };
  }

  const id = checkUint("id", required("id", parameters.id, why));
  params.id = id.toString();
  let data: Hex;
  if (action === "setRepeat") {
    const repeat = checkBoolean("repeat", required("repeat", parameters.repeat, why));
    data = encodeFunctionData({ abi: gridStrategyAbi, functionName: "setRepeat", args: [id, repeat] });
    params.repeat = repeat;
  } else {
    data = encodeFunctionData({ abi: gridStrategyAbi, functionName: action, args: [id] });
  }
  return { kind: "grid", steps: [step(strategy, data)], params };
}
