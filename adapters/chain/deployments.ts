// The deployments file: every contract of the service on this chain. The devnet writes its own;
// a production deployment ships one. Every process reads it through `loadDeployments`.
import { readFileSync } from "node:fs";
import type { Address } from "viem";

export type VaultFamily = "merged" | "up" | "stock-token";
export type TokenCategory = "stock" | "crypto" | "utility" | "meme" | "unclassified";

export type DeployedToken = {
  symbol: string;
  name: string;
  address: Address;
  decimals: number;
  category: TokenCategory;
  /** The USDG market of the token (null for USDG itself). */
  pool: Address | null;
};

export type DeployedVault = {
  address: Address;
  family: VaultFamily;
  name: string;
  /** The token the vault pairs with USDG (merged, up) or holds (stock-token). */
  token: Address;
  /** Contracts of the family the bundles call (queues, routers); absent where the family has none. */
  depositQueue?: Address;
  withdrawalQueue?: Address;
  redeemQueue?: Address;
  router?: Address;
  /** Agents may use it (false vaults answer 404 NOT_AGENT_VAULT). */
  agent: boolean;
};

export type DeployedBasket = { address: Address; name: string; symbol: string; listed: boolean; sellOnly: boolean };

export type Deployments = {
  chainId: number;
  /** First block of any service contract: the indexer's start. */
  startBlock: number;
  /** Named singletons: usdg, weth, markets, aggregator, swapRouter, marketMaker, limitOrderHook, gridStrategy,
   *  ladderStrategy, agentAccountFactory, vaultRegistry, stockVaultRouter, basketRegistry, basketZap, basketMaker. */
  contracts: Record<string, Address>;
  tokens: DeployedToken[];
  vaults: DeployedVault[];
  baskets: DeployedBasket[];
};

export function loadDeployments(file: string): Deployments {
  return JSON.parse(readFileSync(file, "utf8")) as Deployments;
}
