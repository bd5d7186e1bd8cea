// order-action: cancel, claim or realize one of the owner's orders on the limit-order hook.
import { encodeFunctionData, type Address } from "viem";
import { limitOrderHookAbi } from "../../../abis/index.js";
import type { Bundle } from "../../bundles/types.js";
import { checkAddress, checkChoice, checkUint } from "../../bundles/checks.js";
import { step } from "../../bundles/steps.js";

export const orderActions = ["cancel", "claim0", "claim1", "claimBoth", "realize"] as const;
export type OrderAction = (typeof orderActions)[number];

export type BuildOrderActionParameters = {
  /** The signing wallet: the order's owner (the hook pays the caller). */
  owner: Address;
  hook: Address;
  action: OrderAction;
  /** The order's id. */
  id: bigint;
};

/** One step: the hook's `cancel`, `claim0`, `claim1`, `claimBoth` or `realize` of `id`. */
export function buildOrderAction(parameters: BuildOrderActionParameters): Bundle<"order-action"> {
  const owner = checkAddress("owner", parameters.owner);
  const hook = checkAddress("hook", parameters.hook);
  const id = checkUint("id", parameters.id);
  const action = checkChoice("action", parameters.action, orderActions);
  const data = encodeFunctionData({ abi: limitOrderHookAbi, functionName: action, args: [id] });
  return { kind: "order-action", steps: [step(hook, data)], params: { owner, hook, action, id: id.toString() } };
}
