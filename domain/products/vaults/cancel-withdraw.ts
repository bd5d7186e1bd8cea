// vault-cancel-withdraw: take back a queued withdrawal.
import { encodeFunctionData, type Address } from "viem";
import { redeemQueueAbi, upWithdrawalQueueAbi } from "../../../abis/index.js";
import { BundleError, type Bundle, type VaultFamily } from "../../bundles/types.js";
import { checkAddress, checkUint, required, unknownChoice } from "../../bundles/checks.js";
import { step } from "../../bundles/steps.js";

export type BuildVaultCancelWithdrawParameters = {
  family: VaultFamily;
  /** The signing wallet, which owns the request. */
  owner: Address;
  vault: Address;
  /** The queued withdrawal's id. */
  id: bigint;
  /** merged: the vault's redeem queue. */
  redeemQueue?: Address;
  /** up: the vault's withdrawal queue. */
  withdrawalQueue?: Address;
};

export type BuildVaultCancelWithdrawReturnType = Bundle<"vault-cancel-withdraw" | "up-vault-cancel">;

/**
 * One step: merged `redeemQueue.cancel(id)`; up `withdrawalQueue.cancel(id)` (bundle kind up-vault-cancel).
 * Stock-token vaults have no withdrawal queue (INVALID_REQUEST).
 */
export function buildVaultCancelWithdraw(parameters: BuildVaultCancelWithdrawParameters): BuildVaultCancelWithdrawReturnType {
  const owner = checkAddress("owner", parameters.owner);
  const vault = checkAddress("vault", parameters.vault);
  const id = checkUint("id", parameters.id);
  const common = { family: parameters.family, vault, owner, id: id.toString() };
  switch (parameters.family) {
    case "merged": {
      const queue = checkAddress("redeemQueue", required("redeemQueue", parameters.redeemQueue, "for a merged vault (vaults that have a redeem queue)"));
      return {
        kind: "vault-cancel-withdraw",
        steps: [step(queue, encodeFunctionData({ abi: redeemQueueAbi, functionName: "cancel", args: [id] }))],
        params: { ...common, queue },
      };
    }
    case "up": {
      const queue = checkAddress("withdrawalQueue", required("withdrawalQueue", parameters.withdrawalQueue, "for an up vault"));
      return {
        kind: "up-vault-cancel",
        steps: [step(queue, encodeFunctionData({ abi: upWithdrawalQueueAbi, functionName: "cancel", args: [id] }))],
        params: { ...common, queue, request: "withdrawal" },
      };
    }
    case "stock-token":
      throw new BundleError("INVALID_REQUEST", "stock-token vaults have no withdrawal queue", undefined, "vault");
    default:
      return unknownChoice("family", parameters.family);
  }
}
