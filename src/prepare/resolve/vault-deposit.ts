// vault-deposit: USDG into an agent vault. Refuses, with the vault's own reason, when the vault does not
// take the deposit (the projection's status first, then the vault's checkDeposit view, which is what
// requestDeposit checks): 422 DEPOSITS_CLOSED / DEPOSITS_PAUSED / VAULT_FULL / CAPACITY, and
// AMOUNT_TOO_SMALL under the vault's minimum.
// Stock-token vaults need an aggregator leg (USDG → the stock token): not served by this slice (503).
import { mergedVaultAbi } from "../../../abis/index.js";
import { revertReason } from "../../chain/simulate.js";
import { buildVaultDeposit } from "../../domain/bundles/index.js";
import { ApiError } from "../../domain/errors.js";
import type { Resolver } from "../types.js";
import { agentVault, build, lessBps, slippageOf, toBaseUnits, units, usdgOf } from "./common.js";

const USDG_DECIMALS = 6;

export const resolveVaultDeposit: Resolver<"vault-deposit"> = async (ctx, body, owner) => {
  const { deployed, row } = await agentVault(ctx, body.vault);
  const assets = toBaseUnits("amount", body.amount, USDG_DECIMALS);
  const reason = row.reason;
  if (row.status === "closed") throw new ApiError("DEPOSITS_CLOSED", `The vault does not take deposits: ${reason}`);
  if (row.status === "paused") throw new ApiError("DEPOSITS_PAUSED", `Deposits into the vault are paused: ${reason}`);
  if (row.status === "full") throw new ApiError("VAULT_FULL", `The vault is full: ${reason}`);

  // The chain's word (the projection may lag a block): the same check requestDeposit makes.
  const refusal = await ctx.client
    .readContract({ address: deployed.address, abi: mergedVaultAbi, functionName: "checkDeposit", args: [assets] })
    .then(() => undefined, (error: unknown) => revertReason(error));
  if (refusal !== undefined) {
    const code = refusal.split(" ")[0];
    if (code === "DEPOSITS_CLOSED") throw new ApiError("DEPOSITS_CLOSED", `The vault does not take deposits: ${reason}`);
    if (code === "DEPOSITS_PAUSED") throw new ApiError("DEPOSITS_PAUSED", `Deposits into the vault are paused: ${reason}`);
    if (code === "VAULT_FULL") throw new ApiError("VAULT_FULL", `The vault is full: ${reason}`);
    if (code === "CAPACITY") {
      const room = row.depositCap > row.totalAssets + row.pendingAssets ? row.depositCap - row.totalAssets - row.pendingAssets : 0n;
      throw new ApiError("CAPACITY", `The deposit exceeds the vault's remaining capacity (about ${units(room, USDG_DECIMALS)} USDG)`, {
        minimum: "1",
        unit: "USDG",
      });
    }
    if (code === "DEPOSIT_TOO_SMALL") {
      throw new ApiError("AMOUNT_TOO_SMALL", `The vault's smallest deposit is ${units(row.minDeposit, USDG_DECIMALS)} USDG`, {
        minimum: row.minDeposit.toString(),
        unit: "USDG",
      });
    }
    throw new ApiError("SIMULATION_FAILED", `The vault refuses the deposit: ${refusal}`);
  }

  if (deployed.family === "stock-token") {
    throw new ApiError("UNAVAILABLE", "Deposits into stock-token vaults need an aggregator leg, which this service does not prepare yet");
  }
  const expectedShares = await ctx.client.readContract({ address: deployed.address, abi: mergedVaultAbi, functionName: "convertToShares", args: [assets] });
  const slippageBps = slippageOf(body);
  const minShares = lessBps(expectedShares, slippageBps);
  const bundle = build(() =>
    buildVaultDeposit({
      family: deployed.family,
      owner,
      vault: deployed.address,
      usdg: usdgOf(ctx),
      assets,
      minShares,
      depositQueue: deployed.depositQueue,
    }),
  );
  return {
    bundle,
    priceToken: deployed.token,
    params: { amount: units(assets, USDG_DECIMALS), expectedShares: expectedShares.toString(), slippageBps, status: row.status, reason },
  };
};
