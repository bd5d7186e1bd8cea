// vault-withdraw: the owner's shares out of an agent vault, in kind, through its queue, or in USDG. The
// minimums are the vault's previews now less slippageBps. Mode usdg sells the token part through an
// aggregator route (through the route budget): merged vaults redeem(shares, owner, minUsdgOut, route)
// with the vault as the route's recipient; stock-token vaults approve the shares to the router, then
// withdrawUSDG with the router as the route's recipient. Up vaults offer no usdg mode.
import { getAddress, type Address } from "viem";
import { mergedVaultAbi, stockVaultAbi, stockVaultRouterAbi, testTokenAbi, upWithdrawalQueueAbi } from "../../../abis/index.js";
import { AggregatorUnavailableError, NoRouteError } from "../../../adapters/chain/aggregator.js";
import { hopNames } from "../../../adapters/chain/aggregator-tokens.js";
import { buildVaultWithdraw } from "../../../domain/bundles/index.js";
import { ApiError } from "../../../domain/errors.js";
import type { PrepareContext, Resolver } from "../types.js";
import { build, invalid } from "./build.js";
import { lessBps, slippageOf, toBaseUnits, units } from "./numbers.js";
import { agentVault, usdgOf } from "./contracts.js";
import { aggregatorOf } from "./swap.js";
import { sameAddress } from "../../../domain/address.js";

export const resolveVaultWithdraw: Resolver<"vault-withdraw"> = async (ctx, body, owner) => {
  const { deployed } = await agentVault(ctx, body.vault);
  if (body.mode === "usdg" && deployed.family === "up") throw invalid("mode", "up vaults offer modes queue and in-kind, not usdg");
  // Said before the owner's shares are read: whoever asks learns the vault's modes.
  if (body.mode === "queue" && deployed.family === "merged" && !deployed.redeemQueue)
    throw invalid("mode", "queue is not offered by this vault: it has no redeem queue (use mode usdg or in-kind)");
  const vault = deployed.address;
  const [decimals, balance] = await Promise.all([
    ctx.client.readContract({ address: vault, abi: testTokenAbi, functionName: "decimals" }),
    ctx.client.readContract({ address: vault, abi: testTokenAbi, functionName: "balanceOf", args: [owner] }),
  ]);
  const shares = toBaseUnits("shares", body.shares, decimals);
  if (shares === 0n) throw new ApiError("AMOUNT_TOO_SMALL", "shares must be more than 0", { minimum: "1", unit: "token" });
  if (balance < shares) {
    // The shares asked are no minimum of anything: the details name the shares' token (the vault), the message both amounts.
    throw new ApiError(
      "NOTHING_TO_WITHDRAW",
      `shares: the owner holds ${units(balance, decimals)} shares of this vault (${balance} base units), fewer than the ${body.shares} asked: withdraw at most what it holds`,
      { token: getAddress(vault) },
    );
  }
  const slippageBps = slippageOf(body);
  const params: Record<string, unknown> = { sharesUnits: units(shares, decimals), slippageBps };
  let minTokenOut: bigint | undefined;
  let minUsdgOut: bigint | undefined;
  let minAssetsOut: bigint | undefined;
  let route: Awaited<ReturnType<typeof usdgRoute>> | undefined;
  if (body.mode === "usdg") {
    route = await usdgRoute(ctx, deployed, shares, slippageBps);
    minUsdgOut = route.minUsdgOut;
    Object.assign(params, { expectedUsdgOut: route.expectedUsdgOut.toString(), route: hopNames(route.path), priceImpactBps: route.priceImpactBps });
  }
  if (deployed.family !== "stock-token" && body.mode === "in-kind") {
    const [tokenOut, usdgOut] = await ctx.client.readContract({ address: vault, abi: mergedVaultAbi, functionName: "previewRedeemInKind", args: [shares] });
    if (tokenOut === 0n && usdgOut === 0n) throw invalid("amount", "these shares redeem to nothing in kind: redeem more");
    minTokenOut = lessBps(tokenOut, slippageBps);
    minUsdgOut = lessBps(usdgOut, slippageBps);
    Object.assign(params, { expectedTokenOut: tokenOut.toString(), expectedUsdgOut: usdgOut.toString() });
  } else if (body.mode === "queue") {
    // Both reads in one JSON-RPC batch; the preview's failure only counts after the minimum check.
    const [minimum, previewed] = await Promise.all([
      deployed.family === "up"
        ? ctx.client.readContract({ address: deployed.withdrawalQueue!, abi: upWithdrawalQueueAbi, functionName: "minimumShares" })
        : undefined,
      deployed.family !== "stock-token"
        ? ctx.client.readContract({ address: vault, abi: mergedVaultAbi, functionName: "previewRedeem", args: [shares] }).then(
            (value) => ({ value }),
            (error: unknown) => ({ error }),
          )
        : undefined,
    ]);
    if (minimum !== undefined && shares < minimum) {
      throw new ApiError("BELOW_QUEUE_MINIMUM", `The withdrawal queue takes at least ${units(minimum, decimals)} shares: use mode in-kind`, {
        minimum: minimum.toString(),
        unit: "token",
      });
    }
    if (previewed !== undefined) {
      if ("error" in previewed) throw previewed.error;
      const assets = previewed.value;
      minAssetsOut = lessBps(assets, slippageBps);
      params.expectedAssetsOut = assets.toString();
    }
  }
  const bundle = build("vault-withdraw", () =>
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
      route: route?.data,
      router: route?.router,
      aggregator: route?.aggregator,
    }),
  );
  // The minimums in the order the bundle carries them (in-kind: the token's, then USDG's).
  const minimumOut = [minTokenOut, minUsdgOut, minAssetsOut].filter((m): m is bigint => m !== undefined);
  return { bundle, priceToken: deployed.token, params, figures: { amount: shares, minimumOut } };
};

/**
 * Mode usdg: the token the shares redeem to, sold for USDG by the aggregator for the contract that runs
 * the route (the merged vault, or the stock vault router). minUsdgOut = the USDG part + the route's
 * quote, less slippageBps. 503 AGGREGATOR_CHANGED when that contract uses another aggregator.
 */
async function usdgRoute(
  ctx: PrepareContext,
  deployed: { family: string; address: Address; token: Address; router?: Address },
  shares: bigint,
  slippageBps: number,
) {
  const aggregator = aggregatorOf(ctx);
  if (!aggregator) throw new ApiError("UNAVAILABLE", "Mode usdg needs the swap aggregator, which this chain lacks: use mode in-kind");
  const vault = deployed.address;
  let runner: Address;
  let tokenPart: bigint;
  let usdgPart = 0n;
  if (deployed.family === "stock-token") {
    if (!deployed.router) throw new ApiError("UNAVAILABLE", "Mode usdg needs the stock vault router, which this chain lacks: use mode in-kind");
    runner = getAddress(deployed.router);
    tokenPart = await ctx.client.readContract({ address: vault, abi: stockVaultAbi, functionName: "previewRedeem", args: [shares] });
  } else {
    runner = vault;
    [tokenPart, usdgPart] = await ctx.client.readContract({ address: vault, abi: mergedVaultAbi, functionName: "previewRedeemInKind", args: [shares] });
  }
  const configured = await ctx.client.readContract({
    address: runner,
    abi: deployed.family === "stock-token" ? stockVaultRouterAbi : mergedVaultAbi,
    functionName: "aggregator",
  });
  if (!sameAddress(configured, aggregator.address)) throw new ApiError("AGGREGATOR_CHANGED", `${runner} now uses aggregator ${configured}: retry shortly`);
  const usdg = usdgOf(ctx);
  if (tokenPart === 0n) {
    // Nothing to sell: the merged vault skips the route when its token part is 0.
    const expectedUsdgOut = usdgPart;
    return {
      data: "0x" as const,
      router: deployed.family === "stock-token" ? runner : undefined,
      aggregator: aggregator.address,
      expectedUsdgOut,
      minUsdgOut: lessBps(expectedUsdgOut, slippageBps),
      path: [],
      priceImpactBps: 0,
    };
  }
  try {
    const r = await aggregator.route({ tokenIn: getAddress(deployed.token), tokenOut: usdg, amountIn: tokenPart, recipient: runner, slippageBps });
    const expectedUsdgOut = usdgPart + r.amountOut;
    return {
      data: r.data,
      router: deployed.family === "stock-token" ? runner : undefined,
      aggregator: r.to,
      expectedUsdgOut,
      minUsdgOut: lessBps(expectedUsdgOut, slippageBps),
      path: r.path,
      priceImpactBps: r.priceImpactBps,
    };
  } catch (error) {
    if (error instanceof NoRouteError)
      throw new ApiError("SWAP_NO_ROUTE", `The aggregator has no route from the vault's token to USDG for this amount (${error.message}): use mode in-kind`);
    if (error instanceof AggregatorUnavailableError) {
      throw new ApiError("UNAVAILABLE", `The aggregator cannot sell the vault's token for USDG now (${error.message}): use mode in-kind`);
    }
    throw error;
  }
}
