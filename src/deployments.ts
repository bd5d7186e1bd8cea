// The deployments file, read once: which vault a queue belongs to, and each vault's family.
import type { Address } from "viem";
import { loadDeployments, type DeployedVault } from "../adapters/chain/deployments.js";
import { config } from "../adapters/config.js";
import { CANONICAL_ENTRY_POINTS } from "../domain/batch-calls.js";

const d = loadDeployments(config.DEPLOYMENTS_FILE);
const byContract = new Map<string, DeployedVault>();
for (const v of d.vaults) {
  for (const a of [v.address, v.depositQueue, v.withdrawalQueue, v.redeemQueue]) if (a) byContract.set(a.toLowerCase(), v);
}

/** Contracts that users call directly: their transactions are the report card's executed calls. */
const c = d.contracts;
const called = new Set(
  [
    c.swapRouter,
    c.limitOrderHook,
    c.gridStrategy,
    c.ladderStrategy,
    c.stockVaultRouter,
    c.basketZap,
    c.basketMaker,
    ...d.vaults.flatMap((v) => [v.address, v.depositQueue, v.withdrawalQueue, v.redeemQueue]),
  ]
    .filter((a): a is Address => a !== undefined)
    .map((a) => a.toLowerCase()),
);

export const isServiceContract = (address: Address | null) => address !== null && called.has(address.toLowerCase());

/** The EntryPoints whose handleOps the indexer reads: the canonical v0.7 and v0.8 ones and the devnet's. */
export const entryPoints: readonly Address[] = [...CANONICAL_ENTRY_POINTS, ...(c.entryPoint ? [c.entryPoint] : [])];

/** The vault a vault, deposit queue or withdrawal/redeem queue belongs to. */
export function vaultOf(contract: Address): DeployedVault {
  const v = byContract.get(contract.toLowerCase());
  if (!v) throw new Error(`${contract} is not a vault contract of the deployments file`);
  return v;
}
