// vault-cancel-deposit: take back a pending deposit request.
import { encodeFunctionData, type Address } from "viem";
import { mergedVaultAbi, upDepositQueueAbi } from "../../../abis/index.js";
import { BundleError, type Bundle, type VaultFamily } from "../../bundles/types.js";
import { checkAddress, checkUint, required, unknownChoice } from "../../bundles/checks.js";
import { step } from "../../bundles/steps.js";

export type BuildVaultCancelDepositParameters = {
  family: VaultFamily;
  /** The signing wallet, which owns the request. */
  owner: Address;
  vault: Address;
  /** The deposit request's id. */
  id: bigint;
  /** up: the vault's deposit queue. */
  depositQueue?: Address;
};

export type BuildVaultCancelDepositReturnType = Bundle<"vault-cancel-deposit" | "up-vault-cancel">;

/**
 * One step: merged `vault.cancelDeposit(id)`; up `depositQueue.cancel(id)` (bundle kind up-vault-cancel).
 * Stock-token vaults take deposits at once and have no request to cancel (INVALID_REQUEST).
 */
export function buildVaultCancelDeposit(parameters: BuildVaultCancelDepositParameters): BuildVaultCancelDepositReturnType {
  const owner = checkAddress("owner", parameters.owner);
  const vault = checkAddress("vault", parameters.vault);
  const id = checkUint("id", parameters.id);
  const common = { family: parameters.family, vault, owner, id: id.toString() };
  switch (parameters.family) {
    case "merged":
      return {
        kind: "vault-cancel-deposit",
        steps: [step(vault, encodeFunctionData({ abi: mergedVaultAbi, functionName: "cancelDeposit", args: [id] }))],
        params: common,
      };
    case "up": {
      const queue = checkAddress("depositQueue", required("depositQueue", parameters.depositQueue, "for an up vault"));
      return {
        kind: "up-vault-cancel",
        steps: [step(queue, encodeFunctionData({ abi: upDepositQueueAbi, functionName: "cancel", args: [id] }))],
        params: { ...common, queue, request: "deposit" },
      };
    }
    case "stock-token":
      throw new BundleError("INVALID_REQUEST", "stock-token vaults have no deposit requests to cancel", undefined, "vault");
    default:
      return unknownChoice("family", parameters.family);
  }
}
