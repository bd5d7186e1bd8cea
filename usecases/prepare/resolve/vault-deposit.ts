// vault-deposit: USDG into an agent vault. Refuses, with the vault's own reason, when the vault does not
// take the deposit (the projection's status first, then the vault's checkDeposit view, which is what
// requestDeposit checks): 422 DEPOSITS_CLOSED / DEPOSITS_PAUSED / VAULT_FULL / CAPACITY (with the room left), and
// AMOUNT_TOO_SMALL under the vault's minimum.
// Stock-token vaults (bundle kind stock-vault-deposit): the router swaps the USDG to the stock token
// with an aggregator leg (through the route budget), then deposits; the vault's checks and minimum
// shares are on the stock tokens the route is expected to bring.
import { getAddress, type Abi, type Address } from "viem";
import { mergedVaultAbi, stockVaultAbi, stockVaultRouterAbi, upDepositQueueAbi } from "../../../abis/index.js";
import { AggregatorUnavailableError, NoRouteError } from "../../../adapters/chain/aggregator.js";
import { hopNames } from "../../../adapters/chain/aggregator-tokens.js";
import type { DeployedVault } from "../../../adapters/chain/deployments.js";
import { revertReason } from "../../../adapters/chain/simulate.js";
import { buildVaultDeposit } from "../../../domain/bundles/index.js";
import { ApiError } from "../../../domain/errors.js";
import type { PrepareContext, Resolver } from "../types.js";
import { build } from "./build.js";
import { lessBps, slippageOf, toBaseUnits, units } from "./numbers.js";
import { type AgentVault, agentVault, usdgOf } from "./contracts.js";
import { aggregatorOf } from "./swap.js";
import { USDG_DECIMALS } from "../../../domain/price.js";
import { sameAddress } from "../../../domain/address.js";

export const resolveVaultDeposit: Resolver<"vault-deposit"> = async (ctx, body, owner) => {
  const { deployed, row } = await agentVault(ctx, body.vault);
  const assets = toBaseUnits("amount", body.amount, USDG_DECIMALS);
  const reason = row.reason;
  if (row.status === "closed") throw new ApiError("DEPOSITS_CLOSED", `The vault does not take deposits: ${reason}`);
  if (row.status === "paused") throw new ApiError("DEPOSITS_PAUSED", `Deposits into the vault are paused: ${reason}`);
  if (row.status === "full") throw new ApiError("VAULT_FULL", `The vault is full: ${reason}`);

  // Stock-token: what the aggregator leg brings is what the vault checks and takes.
  const stock = deployed.family === "stock-token" ? await stockLeg(ctx, deployed, assets, slippageOf(body)) : undefined;
  const checked = stock?.route.amountOut ?? assets;
  const unitDecimals = stock?.decimals ?? USDG_DECIMALS;

  const [refusal, previewed] = await chainCheck(ctx, deployed.address, checked, stock ? undefined : assets);
  if (refusal !== undefined) await refuseDeposit(ctx, { deployed, row }, refusal, { amount: checked, decimals: unitDecimals, stock: stock !== undefined });

  if ("error" in previewed) throw previewed.error;
  const expectedShares = previewed.value;
  if (stock) {
    const slippageBps = slippageOf(body);
    const bundle = build("vault-deposit", () =>
      buildVaultDeposit({
        family: "stock-token",
        owner,
        vault: deployed.address,
        usdg: usdgOf(ctx),
        assets,
        minShares: lessBps(expectedShares, slippageBps),
        router: stock.router,
        aggregator: stock.route.to,
        swapData: stock.route.data,
      }),
    );
    return {
      bundle,
      priceToken: deployed.token,
      params: {
        amount: units(assets, USDG_DECIMALS),
        expectedTokenIn: stock.route.amountOut.toString(),
        expectedShares: expectedShares.toString(),
        slippageBps,
        route: hopNames(stock.route.path),
        priceImpactBps: stock.route.priceImpactBps,
        status: row.status,
        reason,
      },
      figures: { amount: assets, minimumOut: lessBps(expectedShares, slippageBps) },
    };
  }
  const slippageBps = slippageOf(body);
  const minShares = lessBps(expectedShares, slippageBps);
  const bundle = build("vault-deposit", () =>
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
    figures: { amount: assets, minimumOut: lessBps(expectedShares, slippageBps) },
  };
};

/**
 * The chain's word (the projection may lag a block): the same check requestDeposit makes, and the expected
 * shares of `checked` (a stock vault's tokens) or of `usdgAssets`, read in the same JSON-RPC batch; their
 * failure only counts once the check passed.
 */
function chainCheck(ctx: PrepareContext, vault: Address, checked: bigint, usdgAssets: bigint | undefined) {
  return Promise.all([
    ctx.client.readContract({ address: vault, abi: mergedVaultAbi, functionName: "checkDeposit", args: [checked] }).then(
      () => undefined,
      (error: unknown) => revertReason(error),
    ),
    (usdgAssets === undefined
      ? ctx.client.readContract({ address: vault, abi: stockVaultAbi, functionName: "previewDeposit", args: [checked] })
      : ctx.client.readContract({ address: vault, abi: mergedVaultAbi, functionName: "convertToShares", args: [usdgAssets] })
    ).then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    ),
  ]);
}

/** The vault's checkDeposit refusal as the request's error: the room left or the minimum in the unit the vault checks. */
async function refuseDeposit(
  ctx: PrepareContext,
  { deployed, row }: AgentVault,
  refusal: string,
  checked: { amount: bigint; decimals: number; stock: boolean },
): Promise<never> {
  const reason = row.reason;
  const unitDecimals = checked.decimals;
  const code = refusal.split(" ")[0];
  if (code === "DEPOSITS_CLOSED") throw new ApiError("DEPOSITS_CLOSED", `The vault does not take deposits: ${reason}`);
  if (code === "DEPOSITS_PAUSED") throw new ApiError("DEPOSITS_PAUSED", `Deposits into the vault are paused: ${reason}`);
  if (code === "VAULT_FULL") throw new ApiError("VAULT_FULL", `The vault is full: ${reason}`);
  if (code === "CAPACITY") {
    const room = await roomLeft(ctx, deployed);
    const unitWords = checked.stock ? "stock tokens" : "USDG";
    throw new ApiError(
      "CAPACITY",
      `The deposit (${units(checked.amount, unitDecimals)} ${unitWords}) exceeds the vault's remaining capacity: ${units(room, unitDecimals)} ${unitWords} left (${room} base units)`,
    );
  }
  if (code === "DEPOSIT_TOO_SMALL") {
    throw new ApiError(
      "AMOUNT_TOO_SMALL",
      `The vault's smallest deposit is ${units(row.minDeposit, unitDecimals)} ${checked.stock ? "stock tokens" : "USDG"}`,
      {
        minimum: row.minDeposit.toString(),
        unit: checked.stock ? "token" : "USDG",
      },
    );
  }
  throw new ApiError("SIMULATION_FAILED", `The vault refuses the deposit: ${refusal}`);
}

/**
 * The room left under the vault's deposit cap now, in the unit it checks (USDG, or the stock token): what
 * its checkDeposit compares, cap less total assets less queued deposits (merged: the vault's own queue;
 * up: its deposit queue's). Read from the chain, as the projection's figures may be hours old.
 */
async function roomLeft(ctx: Parameters<Resolver<"vault-deposit">>[0], deployed: Pick<DeployedVault, "address" | "family" | "depositQueue">): Promise<bigint> {
  const read = (address: Address, abi: Abi, functionName: string) => ctx.client.readContract({ address, abi, functionName } as never) as Promise<bigint>;
  const [cap, total, queued] = await Promise.all([
    read(deployed.address, mergedVaultAbi, "depositCap"),
    read(deployed.address, mergedVaultAbi, "totalAssets"),
    deployed.family === "merged"
      ? read(deployed.address, mergedVaultAbi, "queuedAssets")
      : deployed.family === "up" && deployed.depositQueue
        ? read(deployed.depositQueue, upDepositQueueAbi, "queuedAssets")
        : Promise.resolve(0n),
  ]);
  return cap > total + queued ? cap - total - queued : 0n;
}

/** The router and the USDG → stock-token route (recipient the router), or 503 when the aggregator cannot serve. */
async function stockLeg(
  ctx: Parameters<Resolver<"vault-deposit">>[0],
  deployed: { token: `0x${string}`; router?: `0x${string}` },
  assets: bigint,
  slippageBps: number,
) {
  const aggregator = aggregatorOf(ctx);
  if (!deployed.router || !aggregator)
    throw new ApiError("UNAVAILABLE", "Stock-token deposits need the stock vault router and the swap aggregator, which this chain lacks");
  const router = getAddress(deployed.router);
  const configured = await ctx.client.readContract({ address: router, abi: stockVaultRouterAbi, functionName: "aggregator" });
  if (!sameAddress(configured, aggregator.address))
    throw new ApiError("AGGREGATOR_CHANGED", `The stock vault router now uses aggregator ${configured}: retry shortly`);
  const token = getAddress(deployed.token);
  const decimals = ctx.deployments.tokens.find((t) => sameAddress(t.address, token))?.decimals ?? 18;
  try {
    const route = await aggregator.route({ tokenIn: usdgOf(ctx), tokenOut: token, amountIn: assets, recipient: router, slippageBps });
    return { router, route, decimals };
  } catch (error) {
    // No route for this amount is the request's to change (422); an aggregator that did not answer is ours (503).
    if (error instanceof NoRouteError)
      throw new ApiError("SWAP_NO_ROUTE", `The aggregator has no route from USDG to the vault's stock token for this amount: ${error.message}`);
    if (error instanceof AggregatorUnavailableError) {
      throw new ApiError("UNAVAILABLE", `The aggregator cannot swap USDG to the vault's stock token now: ${error.message}`);
    }
    throw error;
  }
}
