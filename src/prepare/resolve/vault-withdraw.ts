// vault-withdraw, modes in-kind and queue: the owner's shares out of an agent vault. The minimums are the
// vault's previews now less slippageBps. Mode usdg needs an aggregator route: not served by this slice (503).
import { mergedVaultAbi, testTokenAbi, upWithdrawalQueueAbi } from "../../../abis/index.js";
import { buildVaultWithdraw } from "../../domain/bundles/index.js";
import { ApiError } from "../../domain/errors.js";
import type { Resolver } from "../types.js";
import { agentVault, build, lessBps, slippageOf, toBaseUnits, units } from "./common.js";

export const resolveVaultWithdraw: Resolver<"vault-withdraw"> = async (ctx, body, owner) => {
  const { deployed } = await agentVault(ctx, body.vault);
  if (body.mode === "usdg") {
    throw new ApiError("UNAVAILABLE", "Mode usdg needs an aggregator route, which this service does not prepare yet: use mode in-kind or queue");
  }
  const vault = deployed.address;
  const [decimals, balance] = await Promise.all([
    ctx.client.readContract({ address: vault, abi: testTokenAbi, functionName: "decimals" }),
    ctx.client.readContract({ address: vault, abi: testTokenAbi, functionName: "balanceOf", args: [owner] }),
  ]);
  const shares = toBaseUnits("shares", body.shares, decimals);
  if (shares === 0n) throw new ApiError("AMOUNT_TOO_SMALL", "shares must be more than 0", { minimum: "1" });
  if (balance < shares) {
    throw new ApiError("NOTHING_TO_WITHDRAW", `The owner holds ${units(balance, decimals)} shares of this vault, fewer than ${body.shares}`, { minimum: shares.toString() });
  }
  const slippageBps = slippageOf(body);
  const params: Record<string, unknown> = { sharesUnits: units(shares, decimals), slippageBps };
  let minTokenOut: bigint | undefined;
  let minUsdgOut: bigint | undefined;
  let minAssetsOut: bigint | undefined;
  if (deployed.family !== "stock-token" && body.mode === "in-kind") {
    const [tokenOut, usdgOut] = await ctx.client.readContract({ address: vault, abi: mergedVaultAbi, functionName: "previewRedeemInKind", args: [shares] });
    minTokenOut = lessBps(tokenOut, slippageBps);
    minUsdgOut = lessBps(usdgOut, slippageBps);
    Object.assign(params, { expectedTokenOut: tokenOut.toString(), expectedUsdgOut: usdgOut.toString() });
  } else if (body.mode === "queue") {
    if (deployed.family === "up") {
      const minimum = await ctx.client.readContract({ address: deployed.withdrawalQueue!, abi: upWithdrawalQueueAbi, functionName: "minimumShares" });
      if (shares < minimum) {
        throw new ApiError("BELOW_QUEUE_MINIMUM", `The withdrawal queue takes at least ${units(minimum, decimals)} shares: use mode in-kind`, { minimum: minimum.toString() });
      }
    }
    if (deployed.family !== "stock-token") {
      const assets = await ctx.client.readContract({ address: vault, abi: mergedVaultAbi, functionName: "previewRedeem", args: [shares] });
      minAssetsOut = lessBps(assets, slippageBps);
      params.expectedAssetsOut = assets.toString();
    }
  }
  const bundle = build(() =>
    buildVaultWithdraw({
      family: deployed.family,
      mode: body.mode,
      owner,
      vault,
      shares,
      minTokenOut,
      minUsdgOut,
      minAssetsOut,
      redeemQueue: deployed.redeemQueue,
      withdrawalQueue: deployed.withdrawalQueue,
    }),
  );
  return { bundle, priceToken: deployed.token, params };
};
