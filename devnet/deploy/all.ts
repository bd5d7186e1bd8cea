// Deploys every product family in a fixed order (so addresses are deterministic) and composes
// the deployments file.
import type { Deployments } from "../../adapters/chain/deployments.js";
import type { DeployContext } from "./context.js";
import { deployCore } from "./core.js";
import { deployVaults } from "./vaults.js";
import { deployStrategies } from "./strategies.js";
import { deployBaskets } from "./baskets.js";
import { deployAccounts } from "./accounts.js";
import { CHAIN_ID } from "../../domain/chain.js";

export async function deployAll(ctx: DeployContext): Promise<Deployments> {
  const startBlock = Number(await ctx.chain.publicClient.getBlockNumber()) + 1;
  const core = await deployCore(ctx);
  const vaults = await deployVaults(ctx, core);
  const strategies = await deployStrategies(ctx, core);
  const baskets = await deployBaskets(ctx, core);
  const accounts = await deployAccounts(ctx);
  const { tokens, ...coreContracts } = core;
  return {
    chainId: CHAIN_ID,
    startBlock,
    contracts: {
      ...coreContracts,
      vaultRegistry: vaults.vaultRegistry,
      stockVaultRouter: vaults.stockVaultRouter,
      ...strategies,
      basketRegistry: baskets.basketRegistry,
      basketZap: baskets.basketZap,
      basketMaker: baskets.basketMaker,
      ...accounts,
    },
    tokens,
    vaults: vaults.vaults,
    baskets: baskets.baskets,
  };
}
