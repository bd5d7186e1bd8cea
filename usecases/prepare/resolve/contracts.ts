// The deployments' contracts a resolver calls: a named singleton (503 NOT_DEPLOYED when missing), USDG,
// and an agent vault (deployments and projection agree, or 404 NOT_AGENT_VAULT).
import { vaultRowOf } from "../../../adapters/db/reads/vault-requests.js";
import { getAddress, type Address } from "viem";
import type { DeployedVault } from "../../../adapters/chain/deployments.js";
import type { Projections } from "../../../adapters/db/projections.js";
import { sameAddress } from "../../../domain/address.js";
import { ApiError } from "../../../domain/errors.js";
import type { PrepareContext } from "../types.js";

/** A named singleton of the deployments file, or 503 NOT_DEPLOYED (basket-make: MAKER_NOT_DEPLOYED). */
export function contract(ctx: PrepareContext, name: string, code: "NOT_DEPLOYED" | "MAKER_NOT_DEPLOYED" = "NOT_DEPLOYED"): Address {
  const address = ctx.deployments.contracts[name];
  if (!address) throw new ApiError(code, `${name} is not deployed on this chain`);
  return getAddress(address);
}

export const usdgOf = (ctx: PrepareContext) => contract(ctx, "usdg");

export type AgentVault = { deployed: DeployedVault; row: Projections["vault"] };

/** The vault agents may use (deployments and projection agree), or 404 NOT_AGENT_VAULT. */
export async function agentVault(ctx: PrepareContext, vault: string): Promise<AgentVault> {
  const deployed = ctx.deployments.vaults.find((v) => sameAddress(v.address, vault));
  if (!deployed?.agent) throw new ApiError("NOT_AGENT_VAULT", `${vault} is not a vault agents may use`);
  const row = await vaultRowOf(ctx.reads, vault);
  if (!row?.agent) throw new ApiError("NOT_AGENT_VAULT", `${vault} is not a vault agents may use`);
  return { deployed, row };
}
