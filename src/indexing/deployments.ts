// The deployments file, read once: which vault a queue belongs to, and each vault's family.
import type { Address } from "viem";
import { loadDeployments, type DeployedVault } from "../chain/deployments.js";
import { config } from "../config.js";

const d = loadDeployments(config.DEPLOYMENTS_FILE);
const byContract = new Map<string, DeployedVault>();
for (const v of d.vaults) {
  for (const a of [v.address, v.depositQueue, v.withdrawalQueue, v.redeemQueue]) if (a) byContract.set(a.toLowerCase(), v);
}

/** The vault a vault, deposit queue or withdrawal/redeem queue belongs to. */
export function vaultOf(contract: Address): DeployedVault {
  const v = byContract.get(contract.toLowerCase());
  if (!v) throw new Error(`${contract} is not a vault contract of the deployments file`);
  return v;
}
