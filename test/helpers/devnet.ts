// Boots a fresh in-process devnet chain with the core deployed, for contract-level tests.
import { startChain, type Chain } from "../../devnet/chain.js";
import { compileContracts, type Artifacts } from "../../devnet/compile.js";
import { deployContext, type DeployContext } from "../../devnet/deploy/context.js";
import { deployCore, type CoreDeployment } from "../../devnet/deploy/core.js";

export type CoreFixture = { chain: Chain; ctx: DeployContext; core: CoreDeployment; artifacts: Artifacts };

/** `families`: contract folders to compile besides core (all when omitted). */
export async function bootCore(families?: string[]): Promise<CoreFixture> {
  const artifacts = compileContracts(families ? { only: ["core", ...families] } : {});
  const chain = await startChain({ genesisTime: Math.floor(Date.now() / 1000) - 91 * 86400 });
  const ctx = deployContext(chain, artifacts);
  const core = await deployCore(ctx);
  return { chain, ctx, core, artifacts };
}
