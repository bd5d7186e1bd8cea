// vault-withdraw: shares out of a vault of any family, in USDG, in kind or through a queue.
import { encodeFunctionData, type Address, type Hex } from "viem";
import { mergedVaultAbi, redeemQueueAbi, stockVaultAbi, stockVaultRouterAbi, upVaultAbi, upWithdrawalQueueAbi } from "../../../abis/index.js";
import { BundleError, type Bundle, type Step, type VaultFamily } from "../../bundles/types.js";
import { checkAddress, checkAmount, checkHex, checkUint, required, unknownChoice } from "../../bundles/checks.js";
import { approvalParam, approveStep, step } from "../../bundles/steps.js";

export type VaultWithdrawMode = "usdg" | "in-kind" | "queue";

export type BuildVaultWithdrawParameters = {
  family: VaultFamily;
  mode: VaultWithdrawMode;
  /** The signing wallet: it holds the shares and receives what they pay. */
  owner: Address;
  /** The vault (its shares are the vault's own ERC-20). */
  vault: Address;
  /** Share base units (12 decimals; stock-token 18). */
  shares: bigint;
  /** Mode usdg (merged, stock-token) and in-kind (merged, up): the least USDG paid. */
  minUsdgOut?: bigint;
  /** Mode in-kind (merged, up): the least token paid. */
  minTokenOut?: bigint;
  /** Mode queue (merged, up): the least USDG the queue pays at settlement. */
  minAssetsOut?: bigint;
  /** Mode usdg: aggregator calldata selling the token part (recipient the vault, or the router for stock-token). */
  route?: Hex;
  /** Mode usdg, stock-token: the aggregator the router is configured with. */
  aggregator?: Address;
  /** Mode usdg, stock-token: the stock vault router. */
  router?: Address;
  /** Mode queue, merged: the vault's redeem queue. */
  redeemQueue?: Address;
  /** Mode queue, up: the vault's withdrawal queue. */
  withdrawalQueue?: Address;
};

export type BuildVaultWithdrawReturnType = Bundle<"vault-withdraw" | "up-vault-withdraw" | "stock-vault-withdraw">;

const kindOf = { merged: "vault-withdraw", up: "up-vault-withdraw", "stock-token": "stock-vault-withdraw" } as const;
const modesOf: Record<VaultFamily, readonly VaultWithdrawMode[]> = {
  merged: ["usdg", "in-kind", "queue"],
  up: ["queue", "in-kind"],
  "stock-token": ["usdg", "in-kind"],
};

/**
 * Every receiver and owner argument is `owner`.
 * - merged: usdg `vault.redeem(shares, owner, minUsdgOut, route)`; in-kind `vault.redeemInKind(shares, owner,
 *   minTokenOut, minUsdgOut)`; queue: approve exactly `shares` to the redeem queue, then `request(shares, owner, minAssetsOut)`.
 * - up: queue: approve exactly `shares` to the withdrawal queue, then `requestRedeem(shares, owner, minimumAssetsOut)`;
 *   in-kind `vault.redeemEmergencyInKind({shares, receiver: owner, minTokenOut, minUsdgOut})`.
 * - stock-token: usdg: approve exactly `shares` to the router, then `withdrawUSDG(vault, shares, minUsdgOut, owner,
 *   aggregator, route)`; in-kind `vault.redeem(shares, owner, owner)`.
 * A mode the family does not offer is INVALID_REQUEST.
 */
export function buildVaultWithdraw(parameters: BuildVaultWithdrawParameters): BuildVaultWithdrawReturnType {
  const { family, mode } = parameters;
  const kind = kindOf[family];
  if (kind === undefined) return unknownChoice("family", family as never);
  if (!modesOf[family].includes(mode))
    throw new BundleError(
      "INVALID_REQUEST",
      `mode ${JSON.stringify(mode)} is not offered by ${family} vaults (${modesOf[family].join(", ")})`,
      undefined,
      "mode",
    );
  const owner = checkAddress("owner", parameters.owner);
  const vault = checkAddress("vault", parameters.vault);
  const shares = checkAmount("shares", parameters.shares);
  const why = `for mode ${mode} of a ${family} vault`;
  const min = (field: "minUsdgOut" | "minTokenOut" | "minAssetsOut") => checkUint(field, required(field, parameters[field], why));
  const params: Record<string, unknown> = { family, mode, vault, owner, receiver: owner, shares: shares.toString() };
  let steps: Step[];

  if (family === "merged" && mode === "usdg") {
    const minUsdgOut = min("minUsdgOut");
    const route = checkHex("route", required("route", parameters.route, why));
    steps = [step(vault, encodeFunctionData({ abi: mergedVaultAbi, functionName: "redeem", args: [shares, owner, minUsdgOut, route] }))];
    Object.assign(params, { minUsdgOut: minUsdgOut.toString() });
  } else if (family === "merged" && mode === "in-kind") {
    const [minTokenOut, minUsdgOut] = [min("minTokenOut"), min("minUsdgOut")];
    steps = [step(vault, encodeFunctionData({ abi: mergedVaultAbi, functionName: "redeemInKind", args: [shares, owner, minTokenOut, minUsdgOut] }))];
    Object.assign(params, { minTokenOut: minTokenOut.toString(), minUsdgOut: minUsdgOut.toString() });
  } else if (family === "merged" && mode === "queue") {
    const queue = checkAddress("redeemQueue", required("redeemQueue", parameters.redeemQueue, "(vaults that have a redeem queue)"));
    const minAssetsOut = min("minAssetsOut");
    steps = [
      approveStep(vault, queue, shares, "shares"),
      step(queue, encodeFunctionData({ abi: redeemQueueAbi, functionName: "request", args: [shares, owner, minAssetsOut] })),
    ];
    Object.assign(params, { queue, minAssetsOut: minAssetsOut.toString(), approvals: [approvalParam(vault, queue, shares)] });
  } else if (family === "up" && mode === "queue") {
    const queue = checkAddress("withdrawalQueue", required("withdrawalQueue", parameters.withdrawalQueue, why));
    const minAssetsOut = min("minAssetsOut");
    steps = [
      approveStep(vault, queue, shares, "shares"),
      step(queue, encodeFunctionData({ abi: upWithdrawalQueueAbi, functionName: "requestRedeem", args: [shares, owner, minAssetsOut] })),
    ];
    Object.assign(params, { queue, minAssetsOut: minAssetsOut.toString(), approvals: [approvalParam(vault, queue, shares)] });
  } else if (family === "up" && mode === "in-kind") {
    const [minTokenOut, minUsdgOut] = [min("minTokenOut"), min("minUsdgOut")];
    const data = encodeFunctionData({
      abi: upVaultAbi,
      functionName: "redeemEmergencyInKind",
      args: [{ shares, receiver: owner, minTokenOut, minUsdgOut }],
    });
    steps = [step(vault, data)];
    Object.assign(params, { minTokenOut: minTokenOut.toString(), minUsdgOut: minUsdgOut.toString() });
  } else if (family === "stock-token" && mode === "usdg") {
    const router = checkAddress("router", required("router", parameters.router, why));
    const aggregator = checkAddress("aggregator", required("aggregator", parameters.aggregator, why));
    const route = checkHex("route", required("route", parameters.route, why));
    const minUsdgOut = min("minUsdgOut");
    steps = [
      approveStep(vault, router, shares, "shares"),
      step(router, encodeFunctionData({ abi: stockVaultRouterAbi, functionName: "withdrawUSDG", args: [vault, shares, minUsdgOut, owner, aggregator, route] })),
    ];
    Object.assign(params, { router, aggregator, minUsdgOut: minUsdgOut.toString(), approvals: [approvalParam(vault, router, shares)] });
  } else {
    // stock-token, in-kind: an ERC-4626 redeem of the caller's own shares.
    steps = [step(vault, encodeFunctionData({ abi: stockVaultAbi, functionName: "redeem", args: [shares, owner, owner] }))];
  }
  return { kind, steps, params };
}
