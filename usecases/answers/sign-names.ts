// The names the sign page gives addresses: the deployments' tokens (verified when on the service's token
// list), vault shares, baskets and the service's contracts (each product names its own), with the ABI each
// contract's calls are read with.
import type { Address } from "viem";
import type { Deployments, VaultFamily } from "../../adapters/chain/deployments.js";
import { listedToken } from "../../adapters/chain/token-list.js";
import type { AbiName } from "../../domain/bundles/decode.js";
import type { DescribeContract, DescribeNames, DescribeToken } from "../../domain/bundles/describe.js";
import { products } from "../../domain/products/index.js";
import { zeroAddress } from "viem";

const vaultAbi: Record<VaultFamily, AbiName> = { merged: "mergedVaultAbi", up: "upVaultAbi", "stock-token": "stockVaultAbi" };
/** Share decimals (spec Conventions): 12, and 18 for stock-token vaults. */
const shareDecimals: Record<VaultFamily, number> = { merged: 12, up: 12, "stock-token": 18 };

/** The describer's names for one owner's bundle on these deployments. `account`: the owner's agent account, when the bundle goes through it. */
export function namesFromDeployments(deployments: Deployments, owner: Address, account?: Address): DescribeNames {
  const tokens: Record<string, DescribeToken> = {};
  const contracts: Record<string, DescribeContract> = {};
  for (const t of deployments.tokens)
    tokens[t.address.toLowerCase()] = { symbol: t.symbol, decimals: t.decimals, verified: listedToken(t.address) !== undefined };
  for (const v of deployments.vaults) {
    const vault = /\bvault\b/i.test(v.name) ? `the ${v.name}` : `the ${v.name} vault`;
    tokens[v.address.toLowerCase()] = { symbol: `${v.name} shares`, decimals: shareDecimals[v.family] };
    contracts[v.address.toLowerCase()] = { name: vault, abi: vaultAbi[v.family], token: v.token };
    if (v.depositQueue) contracts[v.depositQueue.toLowerCase()] = { name: `${vault}'s deposit queue`, abi: "upDepositQueueAbi", vault: v.address };
    if (v.withdrawalQueue) contracts[v.withdrawalQueue.toLowerCase()] = { name: `${vault}'s withdrawal queue`, abi: "upWithdrawalQueueAbi", vault: v.address };
    if (v.redeemQueue) contracts[v.redeemQueue.toLowerCase()] = { name: `${vault}'s redeem queue`, abi: "redeemQueueAbi", vault: v.address };
  }
  for (const b of deployments.baskets) {
    tokens[b.address.toLowerCase()] ??= { symbol: b.symbol, decimals: 18, verified: b.listed };
    contracts[b.address.toLowerCase()] ??= { name: `the ${b.name} basket (${b.symbol})` };
  }
  for (const { key, name, abi } of products.flatMap((p) => p.contracts)) {
    const address = deployments.contracts[key];
    if (address) contracts[address.toLowerCase()] = { name, abi };
  }
  if (account) contracts[account.toLowerCase()] = { name: account, abi: "agentAccountAbi" };
  const usdg = (deployments.contracts.usdg ?? deployments.tokens.find((t) => t.symbol === "USDG")?.address ?? zeroAddress) as Address;
  return { owner, usdg, tokens, contracts };
}
