// Wallet accounts that send atomic batches, as modern wallets do: the ERC-7821 batch executor an EIP-7702
// account delegates to, and a reference ERC-4337 EntryPoint with a factory of smart accounts. Deployed
// last, so the other families keep their addresses.
import type { Address } from "viem";
import type { DeployContext } from "./context.js";

export type AccountsDeployment = { batchExecutor: Address; entryPoint: Address; smartAccountFactory: Address };

export async function deployAccounts(ctx: DeployContext): Promise<AccountsDeployment> {
  const batchExecutor = await ctx.deploy("BatchExecutor");
  const entryPoint = await ctx.deploy("EntryPoint");
  const smartAccountFactory = await ctx.deploy("SmartAccountFactory", [entryPoint]);
  return { batchExecutor, entryPoint, smartAccountFactory };
}
