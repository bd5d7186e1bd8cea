// vault-deposit: USDG into a vault of any family.
import { encodeFunctionData, type Address, type Hex } from "viem";
import { mergedVaultAbi, stockVaultRouterAbi, upDepositQueueAbi } from "../../../abis/index.js";
import type { Bundle, VaultFamily } from "../../bundles/types.js";
import { checkAddress, checkAmount, checkHex, checkUint, required, unknownChoice } from "../../bundles/checks.js";
import { approvalParam, approveStep, step } from "../../bundles/steps.js";

export type BuildVaultDepositParameters = {
  family: VaultFamily;
  /** The signing wallet: the receiver of the shares. */
  owner: Address;
  vault: Address;
  usdg: Address;
  /** USDG base units. */
  assets: bigint;
  /** Minimum shares (merged: minShares; up: minimumSharesOut; stock-token: the router's minShares). */
  minShares: bigint;
  /** up: the vault's deposit queue (the approval's spender and the call's target). */
  depositQueue?: Address;
  /** stock-token: the stock vault router. */
  router?: Address;
  /** stock-token: the aggregator the router is configured with (the route's `to`). */
  aggregator?: Address;
  /** stock-token: aggregator calldata swapping `assets` USDG to the stock token, recipient the router. */
  swapData?: Hex;
};

export type BuildVaultDepositReturnType = Bundle<"vault-deposit" | "up-vault-deposit" | "stock-vault-deposit">;

/**
 * Approve exactly `assets` USDG to the contract that pulls it, then request the deposit for `owner`:
 * merged `vault.requestDeposit(assets, owner, minShares)`; up `depositQueue.requestDeposit(assets, owner,
 * minimumSharesOut)`; stock-token `router.deposit({vault, usdgIn, minShares, receiver: owner, aggregator, swapData})`.
 */
export function buildVaultDeposit(parameters: BuildVaultDepositParameters): BuildVaultDepositReturnType {
  const owner = checkAddress("owner", parameters.owner);
  const vault = checkAddress("vault", parameters.vault);
  const usdg = checkAddress("usdg", parameters.usdg);
  const assets = checkAmount("assets", parameters.assets);
  const minShares = checkUint("minShares", parameters.minShares);
  const common = { family: parameters.family, vault, owner, receiver: owner, assets: assets.toString(), minShares: minShares.toString() };

  switch (parameters.family) {
    case "merged": {
      const data = encodeFunctionData({ abi: mergedVaultAbi, functionName: "requestDeposit", args: [assets, owner, minShares] });
      return {
        kind: "vault-deposit",
        steps: [approveStep(usdg, vault, assets, "assets"), step(vault, data)],
        params: { ...common, approvals: [approvalParam(usdg, vault, assets)] },
      };
    }
    case "up": {
      const queue = checkAddress("depositQueue", required("depositQueue", parameters.depositQueue, "for an up vault"));
      const data = encodeFunctionData({ abi: upDepositQueueAbi, functionName: "requestDeposit", args: [assets, owner, minShares] });
      return {
        kind: "up-vault-deposit",
        steps: [approveStep(usdg, queue, assets, "assets"), step(queue, data)],
        params: { ...common, depositQueue: queue, approvals: [approvalParam(usdg, queue, assets)] },
      };
    }
    case "stock-token": {
      const router = checkAddress("router", required("router", parameters.router, "for a stock-token vault"));
      const aggregator = checkAddress("aggregator", required("aggregator", parameters.aggregator, "for a stock-token vault"));
      const swapData = checkHex("swapData", required("swapData", parameters.swapData, "for a stock-token vault"));
      const data = encodeFunctionData({
        abi: stockVaultRouterAbi,
        functionName: "deposit",
        args: [{ vault, usdgIn: assets, minShares, receiver: owner, aggregator, swapData }],
      });
      return {
        kind: "stock-vault-deposit",
        steps: [approveStep(usdg, router, assets, "assets"), step(router, data)],
        params: { ...common, router, aggregator, approvals: [approvalParam(usdg, router, assets)] },
      };
    }
    default:
      return unknownChoice("family", parameters.family);
  }
}
